import { expect, test } from "@playwright/test";
import { liveCase } from "@/tests/support/dashboard-records";
import { signIn, snap } from "./support/dashboard";

test("create a key (shown once), use it, revoke it, and see its next POST rejected", async ({ page }) => {
  await signIn(page, "/");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
  await expect(page).toHaveURL(/\/settings\/keys$/);
  await page.getByLabel("Name").fill("nightly-etl");
  await page.getByRole("button", { name: "Create key" }).click();
  const key = (await page.getByTestId("new-key").textContent()) ?? "";
  expect(key).toMatch(/^rcpt_/);
  const row = page.locator('tr[data-key-name="nightly-etl"]');
  await expect(row).toContainText("active");
  await snap(page, "keys");

  const post = () =>
    page.request.post("/api/v1/records", {
      data: { records: [liveCase(`keys-${Date.now()}`, "healthy")] },
      headers: { authorization: `Bearer ${key}` },
    });
  expect((await post()).status()).toBe(200);

  await page.getByRole("button", { name: "I have stored it" }).click();
  await expect(page.getByTestId("new-key")).toHaveCount(0); // never shown again
  await row.getByRole("button", { name: "Revoke…" }).click();
  await row.getByRole("button", { name: "Revoke nightly-etl now" }).click();
  await expect(row).toContainText("revoked");
  const rejected = await post();
  expect(rejected.status()).toBe(401);
  expect(await rejected.json()).toMatchObject({ error: { code: "unauthorized" } });
});

// Browsers compile `pattern` with the `v` flag, where an unescaped "-" at the end of a class is a syntax error: the
// pattern is then ignored (every name passes) and the console logs the error on each keystroke.
test("the key name field checks its pattern in the browser and logs nothing", async ({ page }) => {
  const logged: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") logged.push(message.text());
  });
  await signIn(page);
  await page.goto("/settings/keys");
  const name = page.getByLabel("Name");
  await name.fill("-starts-with-dash");
  expect(await name.evaluate((input: HTMLInputElement) => input.validity.patternMismatch)).toBe(true);
  await name.fill("nightly.etl_2-b");
  expect(await name.evaluate((input: HTMLInputElement) => input.validity.valid)).toBe(true);
  expect(logged).toEqual([]);
});
