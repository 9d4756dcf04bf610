import { expect as baseExpect, type Browser, type Page, test } from "@playwright/test";
import { signIn, snap } from "./support/dashboard";

// Issue 23, users: an admin invites, the invited person joins through the link in another browser, the admin
// changes their role and their next page shows it; one's own password and sessions on /account.
test.describe.configure({ timeout: 180_000 });
// Six engineers share this machine: pages may take a while to load their data.
const expect = baseExpect.configure({ timeout: 20_000 });

const unique = (prefix: string) =>
  `${prefix}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

async function createInviteLink(page: Page, role: "Viewer" | "Responder" | "Admin"): Promise<string> {
  await page.goto("/settings/users");
  await page.getByLabel("Role", { exact: true }).selectOption({ label: role });
  await page.getByRole("button", { name: "Create invite link" }).click();
  const link = (await page.getByTestId("invite-link").textContent()) ?? "";
  expect(link).toMatch(/\/join\?token=[\w-]{43}$/);
  return link;
}

/** A second person, in a browser context of their own, joins through `link` as `username`. */
async function joinAs(browser: Browser, link: string, username: string, password: string) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(link);
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Join and sign in" }).click();
  await page.waitForURL((url) => url.pathname === "/");
  await expect(page.getByTestId("signed-in-user")).toContainText(username);
  return { context, page };
}

test("an admin invites a responder, who joins through the link; the admin makes them a viewer", async ({
  page,
  browser,
}) => {
  await signIn(page, "/settings/users");
  await expect(page.getByRole("heading", { name: "Users", level: 1 })).toBeVisible();
  const link = await createInviteLink(page, "Responder");
  await snap(page, "users-invite");

  // The invited person, elsewhere: field errors first, each next to its field.
  const guest = await browser.newContext();
  const joinPage = await guest.newPage();
  await joinPage.goto(link);
  await expect(joinPage.getByText("You are invited as a responder")).toBeVisible();
  await joinPage.getByLabel("Username").fill("admin");
  await joinPage.getByLabel("Password").fill("short");
  await joinPage.getByRole("button", { name: "Join and sign in" }).click();
  await expect(joinPage.locator("#password-error")).toHaveText("at least 8 characters");
  await joinPage.getByLabel("Password").fill("a long enough password");
  await joinPage.getByRole("button", { name: "Join and sign in" }).click();
  await expect(joinPage.locator("#username-error")).toHaveText("choose another username");
  await snap(joinPage, "users-join");
  const username = unique("joiner");
  await joinPage.getByLabel("Username").fill(username);
  await joinPage.getByRole("button", { name: "Join and sign in" }).click();
  await joinPage.waitForURL((url) => url.pathname === "/");
  await joinPage.goto("/account");
  await expect(joinPage.getByText(`Signed in as ${username}, responder`)).toBeVisible();

  // The link is used up.
  const reuse = await browser.newContext();
  const reusePage = await reuse.newPage();
  await reusePage.goto(link);
  await expect(reusePage.getByRole("heading", { name: "This invitation cannot be used" })).toBeVisible();
  await reuse.close();

  // The admin demotes them: their very next page says so.
  await page.reload();
  const row = page.locator(`tr[data-username="${username}"]`);
  await expect(row).toContainText("active");
  await row.getByLabel(`Role of ${username}`).selectOption("viewer");
  await expect(row.getByLabel(`Role of ${username}`)).toHaveValue("viewer");
  await joinPage.reload();
  await expect(joinPage.getByText(`Signed in as ${username}, viewer`)).toBeVisible();

  // Disabled: their next page is the sign-in page.
  await row.getByRole("button", { name: `Disable ${username}` }).click();
  await expect(row).toContainText("disabled");
  await snap(page, "users-team");
  await joinPage.goto("/account");
  await expect(joinPage).toHaveURL(/\/sign-in/);
  await guest.close();
});

test("own account: revoke a session in another browser, change the password with field errors", async ({
  page,
  browser,
}) => {
  await signIn(page, "/settings/users");
  const link = await createInviteLink(page, "Viewer");
  const username = unique("owner");
  const here = await joinAs(browser, link, username, "first password");

  // The same person signs in from a second browser.
  const other = await browser.newContext();
  const otherPage = await other.newPage();
  await otherPage.goto("/sign-in");
  await otherPage.getByLabel("Username").fill(username);
  await otherPage.getByLabel("Password").fill("first password");
  await otherPage.getByRole("button", { name: "Sign in" }).click();
  await otherPage.waitForURL((url) => url.pathname === "/");

  await here.page.goto("/account");
  const rows = here.page.locator("tr[data-session-id]");
  await expect(rows).toHaveCount(2);
  await expect(here.page.locator("tr[data-current]")).toContainText("This browser");
  await snap(here.page, "account");
  await here.page
    .locator("tr[data-session-id]:not([data-current])")
    .getByRole("button", { name: "Revoke" })
    .click();
  await expect(rows).toHaveCount(1);
  await otherPage.goto("/account");
  await expect(otherPage).toHaveURL(/\/sign-in/);

  const current = here.page.getByLabel("Current password", { exact: true });
  const next = here.page.getByLabel("New password (at least 8 characters)");
  await current.fill("not my password");
  await next.fill("second password");
  await here.page.getByRole("button", { name: "Change password" }).click();
  await expect(here.page.locator("#currentPassword-error")).toHaveText("this is not your current password");
  await current.fill("first password");
  await next.fill("first password");
  await here.page.getByRole("button", { name: "Change password" }).click();
  await expect(here.page.locator("#newPassword-error")).toHaveText(
    "choose a password other than the current one",
  );
  await snap(here.page, "account-errors");
  await next.fill("second password");
  await here.page.getByRole("button", { name: "Change password" }).click();
  await expect(here.page.getByText("Password changed.")).toBeVisible();

  // Only the new password signs in now.
  await otherPage.getByLabel("Username").fill(username);
  await otherPage.getByLabel("Password").fill("second password");
  await otherPage.getByRole("button", { name: "Sign in" }).click();
  await otherPage.waitForURL((url) => url.pathname === "/account");
  await other.close();
  await here.context.close();
});
