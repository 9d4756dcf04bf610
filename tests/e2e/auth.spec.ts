import { type BrowserContext, expect, type Page, test } from "@playwright/test";
import { E2E_ADMIN } from "./support/credentials";
import { signIn, snap } from "./support/dashboard";

test.describe("sign-in guards every page", () => {
  test("a signed-out visitor is sent to sign-in, and back to the page asked for afterwards", async ({
    page,
  }) => {
    await page.goto("/coverage?window=24h");
    await expect(page).toHaveURL(/\/sign-in\?next=%2Fcoverage%3Fwindow%3D24h$/);
    await snap(page, "sign-in");
    await page.getByLabel("Username").fill(E2E_ADMIN.username);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "Wrong username or password." })).toBeVisible();
    await page.getByLabel("Password").fill(E2E_ADMIN.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/coverage\?window=24h$/);
    await expect(page.getByRole("heading", { name: "Outcome coverage" })).toBeVisible();
  });

  test("the header names the user; signing out ends the session", async ({ page }) => {
    await signIn(page, "/");
    await expect(page.getByTestId("signed-in-user")).toHaveText(/Signed in as\s*admin/);
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/sign-in$/);
    await page.goto("/chains");
    await expect(page).toHaveURL(/\/sign-in\?next=%2Fchains$/);
    expect((await page.request.get("/api/v1/chains")).status()).toBe(401);
  });

  test("first-run setup is closed once an admin exists; an outside link cannot redirect away", async ({
    page,
  }) => {
    await page.goto("/setup");
    await expect(page).toHaveURL(/\/sign-in$/);
    await signIn(page, "/");
    await page.goto("/sign-in?next=//evil.example/");
    await expect(page).toHaveURL(/127\.0\.0\.1:\d+\/$/);
  });
});

// `?next=` as an attacker would write it in a link (already percent-encoded where a link would be).
const OFF_SITE_NEXT = [
  "/%09/evil.example/",
  "/%0A/evil.example/",
  "/%0D/evil.example/",
  "%09//evil.example/",
  "//evil.example/",
  "%2F%2Fevil.example/",
  "/%2F%2Fevil.example/",
  "/%252F%252Fevil.example/",
  "/\\evil.example/",
  "/%5Cevil.example/",
  "%5C%5Cevil.example/",
  "/%5C/evil.example/",
  "/.//evil.example/",
  "https://evil.example/",
  "https:evil.example",
  "javascript:alert(document.domain)",
];

/** Aborts (and records) every request that leaves the app's origin, so a redirect off-site is seen, not followed. */
async function recordOffSiteRequests(context: BrowserContext, origin: string): Promise<string[]> {
  const offSite: string[] = [];
  await context.route(
    (url) => url.origin !== origin,
    (route) => {
      offSite.push(route.request().url());
      return route.abort();
    },
  );
  return offSite;
}

async function expectOnSite(page: Page, origin: string, offSite: string[]) {
  expect(new URL(page.url()).origin).toBe(origin);
  expect(offSite).toEqual([]);
}

test.describe("the next parameter never leaves the site", () => {
  test("signing in through the form with each off-site ?next= lands on the overview", async ({
    page,
    baseURL,
  }) => {
    test.setTimeout(OFF_SITE_NEXT.length * 20_000);
    const origin = new URL(baseURL ?? "").origin;
    const offSite = await recordOffSiteRequests(page.context(), origin);
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      return dialog.dismiss();
    });
    for (const next of OFF_SITE_NEXT) {
      await page.context().clearCookies();
      await page.goto(`/sign-in?next=${next}`);
      await page.getByLabel("Username").fill(E2E_ADMIN.username);
      await page.getByLabel("Password").fill(E2E_ADMIN.password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL((url) => url.pathname !== "/sign-in", { waitUntil: "commit" });
      expect(page.url(), next).toBe(`${origin}/`);
    }
    await expect(page.getByTestId("signed-in-user")).toBeVisible();
    await expectOnSite(page, origin, offSite);
    expect(dialogs).toEqual([]);
  });

  test("a signed-in visitor sent to /sign-in with each off-site ?next= is redirected on the site", async ({
    page,
    baseURL,
  }) => {
    test.setTimeout(OFF_SITE_NEXT.length * 10_000);
    const origin = new URL(baseURL ?? "").origin;
    await signIn(page);
    const offSite = await recordOffSiteRequests(page.context(), origin);
    for (const next of OFF_SITE_NEXT) {
      await page.goto(`/sign-in?next=${next}`, { waitUntil: "commit" });
      expect(page.url(), next).toBe(`${origin}/`);
    }
    await expectOnSite(page, origin, offSite);
  });

  test("a path of the site is still honoured, query and all", async ({ page, baseURL }) => {
    const origin = new URL(baseURL ?? "").origin;
    await page.goto(`/sign-in?next=${encodeURIComponent("/chains?state=false_success")}`);
    await page.getByLabel("Username").fill(E2E_ADMIN.username);
    await page.getByLabel("Password").fill(E2E_ADMIN.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => url.pathname === "/chains");
    expect(page.url()).toBe(`${origin}/chains?state=false_success`);
  });
});

test("after repeated wrong passwords the form says how long to wait, then lets the right one in", async ({
  page,
}) => {
  await page.goto("/sign-in");
  await page.getByLabel("Username").fill(E2E_ADMIN.username);
  await page.getByLabel("Password").fill(E2E_ADMIN.password);
  // Production policy: five free failures, then locks of 1 s, 2 s, 4 s; each failure is sent once the lock before
  // it has ended, so the last one leaves a 4 s lock, long enough to click into on a busy machine.
  for (const lockBefore of [0, 0, 0, 0, 0, 0, 1000, 2000]) {
    await page.waitForTimeout(lockBefore && lockBefore + 100);
    const response = await page.request.post("/api/auth/sign-in", {
      data: { username: E2E_ADMIN.username, password: "not the password" },
    });
    expect(response.status()).toBe(401);
  }
  await page.getByRole("button", { name: "Sign in" }).click();
  const refusal = page
    .getByRole("alert")
    .filter({ hasText: /^Too many failed sign-ins: try again in [1-4] s\.$/ });
  await expect(refusal).toBeVisible();
  const seconds = Number(/in (\d) s/.exec((await refusal.textContent()) ?? "")?.[1]);
  await page.waitForTimeout(seconds * 1000 + 100);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => url.pathname === "/");
  await expect(page.getByTestId("signed-in-user")).toBeVisible();
});
