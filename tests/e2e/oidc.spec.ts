import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import { startTestProvider, type TestProvider } from "@/tests/support/oidc-provider";
import { snap } from "./support/dashboard";
import { E2E_OIDC_CLIENT } from "./support/oidc";

// Single sign-on in Chromium against a real OpenID Connect provider (oidc-provider) on the port playwright.config.ts
// gave the app as its issuer: the button, the provider's own login and consent pages, back on the overview.
let provider: TestProvider | undefined;

test.beforeAll(async ({ baseURL }) => {
  provider = await startTestProvider({
    port: Number(process.env.E2E_OIDC_PORT),
    redirectUri: `${baseURL}/api/auth/oidc/callback`,
    clientId: E2E_OIDC_CLIENT.clientId,
    clientSecret: E2E_OIDC_CLIENT.clientSecret,
  });
});
test.afterAll(async () => {
  await provider?.stop();
});

test("Sign in with the provider: its login form and consent, then the overview as that user", async ({
  page,
}) => {
  const login = `olivia-${randomBytes(4).toString("hex")}`;
  provider?.accounts.set(login, {
    preferred_username: login,
    name: "Olivia Example",
    email: `${login}@example.test`,
    receipt_role: "responder",
  });
  await page.goto("/sign-in");
  const button = page.getByRole("link", { name: `Sign in with ${E2E_OIDC_CLIENT.name}` });
  await expect(button).toBeVisible();
  await expect(page.getByLabel("Password")).toBeVisible();
  await snap(page, "oidc-sign-in");

  await button.click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("any password");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();

  await page.waitForURL((url) => url.pathname === "/");
  await expect(page.getByTestId("signed-in-user")).toHaveText(new RegExp(`Signed in as\\s*${login}`));
  const me = await page.request.get("/api/auth/me");
  expect(await me.json()).toEqual({ user: { username: login, role: "responder" } });
  await snap(page, "oidc-overview");
});

test("a single sign-on that fails comes back to the sign-in page with what went wrong", async ({ page }) => {
  // What the browser gets when the person cancels at the provider.
  await page.goto("/api/auth/oidc/callback?error=access_denied&state=anything");
  await expect(page).toHaveURL(/\/sign-in\?error=oidc_denied$/);
  await expect(page.getByRole("alert").filter({ hasText: "did not sign you in" })).toBeVisible();
  await expect(page.getByRole("link", { name: `Sign in with ${E2E_OIDC_CLIENT.name}` })).toBeVisible();
  await snap(page, "oidc-sign-in-error");
});
