import { expect, test } from "@playwright/test";
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
    await signIn(page);
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
