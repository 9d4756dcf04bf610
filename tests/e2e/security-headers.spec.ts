import { expect, type Page, type Response, test } from "@playwright/test";
import { parseContentSecurityPolicy, scriptNonce } from "@/tests/support/csp";
import { liveCase } from "@/tests/support/dashboard-records";
import { E2E_ADMIN } from "./support/credentials";
import { ingest, signIn } from "./support/dashboard";

// Under the nonce-based CSP every page still renders, hydrates and logs nothing: a script without its nonce would
// leave the server HTML on screen with dead links and a console error, which is what these tests look for.

const tag = `csp-${Date.now()}`;
const effectUnknown = liveCase(tag, "effect_unknown");
const falseSuccess = liveCase(tag, "false_success");

test.beforeAll(async ({ browser }) => {
  const page = await browser.newPage();
  await signIn(page);
  await ingest(page.request, [effectUnknown, falseSuccess]);
  await page.close();
});

type BrowserWindow = Window & { reportCspViolation: (report: string) => void; sameDocument?: boolean };

/**
 * Watches a page from before its first script: everything that shows it broke (console errors and warnings,
 * uncaught errors, CSP violations), and the response of the document it shows now.
 */
async function watchPage(page: Page) {
  const trouble: string[] = [];
  let shownDocument: Response | null = null;
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") {
      trouble.push(`console ${message.type()}: ${message.text()}`);
    }
  });
  page.on("pageerror", (error) => trouble.push(`uncaught: ${error.message}`));
  page.on("response", (response) => {
    if (response.request().isNavigationRequest() && response.frame() === page.mainFrame())
      shownDocument = response;
  });
  await page.exposeFunction("reportCspViolation", (report: string) =>
    trouble.push(`CSP violation: ${report}`),
  );
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      (window as unknown as BrowserWindow).reportCspViolation(
        `${event.effectiveDirective} refused ${event.blockedURI || "inline"} on ${event.documentURI}`,
      );
    });
  });
  return { trouble, document: () => shownDocument };
}

/**
 * The document's response carried a nonce policy and its inline scripts that nonce (the chunks those scripts load
 * later need none: 'strict-dynamic' trusts them).
 */
async function expectNoncePolicy(page: Page, response: Response | null) {
  const policy = parseContentSecurityPolicy((await response?.headerValue("content-security-policy")) ?? "");
  const nonce = scriptNonce(policy);
  expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
  expect(policy.get("script-src")).not.toContain("'unsafe-inline'");
  const inlineNonces = await page.evaluate(() =>
    [...document.scripts].filter((script) => !script.src).map((script) => script.nonce),
  );
  expect(inlineNonces.length).toBeGreaterThan(0);
  expect(new Set(inlineNonces)).toEqual(new Set([nonce]));
}

/** React is in charge of the page: a link click swaps the page without loading a new document. */
async function expectClientNavigation(page: Page, link: string, heading: string | RegExp) {
  await page.evaluate(() => {
    (window as unknown as BrowserWindow).sameDocument = true;
  });
  await page.getByRole("link", { name: link, exact: true }).first().click();
  await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible({ timeout: 15_000 });
  expect(await page.evaluate(() => (window as unknown as BrowserWindow).sameDocument)).toBe(true);
}

/** `name` titles the test: the same in every run, while the ids of this run's chain and session are not. */
const dashboardPages: Array<{
  name?: string;
  path: string;
  heading: string | RegExp;
  lands?: string;
  link: string;
  next: string;
}> = [
  { path: "/", heading: "Overview", link: "Chains", next: "Chains" },
  { path: "/chains", heading: "Chains", link: "Overview", next: "Overview" },
  {
    name: "/chains/[chainId]",
    path: `/chains/${encodeURIComponent(effectUnknown.chainId)}`,
    heading: effectUnknown.chainId,
    link: "Coverage",
    next: "Outcome coverage",
  },
  {
    name: "/sessions/[sessionId]",
    path: `/sessions/${encodeURIComponent(falseSuccess.session.id)}`,
    heading: falseSuccess.session.id,
    link: "Routing",
    next: "Alert routing",
  },
  { path: "/queues/false-success", heading: /False success queue/, link: "Chains", next: "Chains" },
  { path: "/queues/effect-unknown", heading: /Effect unknown queue/, link: "Overview", next: "Overview" },
  { path: "/coverage", heading: "Outcome coverage", link: "Settings", next: "Ingestion keys" },
  { path: "/silences", heading: "Silences", link: "Problems", next: "Problems" },
  { path: "/routing", heading: "Alert routing", link: "Coverage", next: "Outcome coverage" },
  {
    path: "/settings",
    lands: "/settings/keys",
    heading: "Ingestion keys",
    link: "Routing",
    next: "Alert routing",
  },
  { path: "/settings/keys", heading: "Ingestion keys", link: "Overview", next: "Overview" },
];

test.describe("every page under the Content-Security-Policy", () => {
  for (const { name, path, heading, lands, link, next } of dashboardPages) {
    test(`${name ?? path} renders, hydrates and keeps the console clean`, async ({ page }) => {
      const watch = await watchPage(page);
      await signIn(page);
      await page.goto(path);
      await expect(page).toHaveURL((url) => url.pathname === (lands ?? path));
      await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible({ timeout: 15_000 });
      await expect(page.getByRole("status").filter({ hasText: /^Loading/ })).toHaveCount(0, {
        timeout: 15_000,
      });
      await expectNoncePolicy(page, watch.document());
      await expectClientNavigation(page, link, next);
      expect(watch.trouble).toEqual([]);
    });
  }

  test("the overview's chart draws (its sizes are style attributes)", async ({ page }) => {
    const watch = await watchPage(page);
    await signIn(page, "/");
    const chart = page.getByTestId("trend-chart");
    await expect(chart.getByRole("application")).toBeVisible({ timeout: 15_000 });
    expect((await chart.boundingBox())?.height).toBe(280);
    await expect(chart.locator(".recharts-bar-rectangle").first()).toBeVisible();
    expect(watch.trouble).toEqual([]);
  });

  test("the sign-in page works by script: a wrong password is answered in place", async ({ page }) => {
    const watch = await watchPage(page);
    const response = await page.goto("/sign-in");
    await expect(page.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
    await expectNoncePolicy(page, response);
    await page.getByLabel("Username").fill(E2E_ADMIN.username);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "Wrong username or password." })).toBeVisible();
    await expect(page).toHaveURL(/\/sign-in$/);
    // Chromium logs every 4xx answer to a fetch; that line is the refusal the page shows, not breakage.
    expect(watch.trouble).toEqual([expect.stringMatching(/^console error: Failed to load resource: .* 401/)]);
  });

  test("the 404 page hydrates: its link back navigates in place", async ({ page }) => {
    const watch = await watchPage(page);
    await signIn(page);
    const response = await page.goto("/no-such-page");
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { level: 1, name: "No such page" })).toBeVisible();
    // The way around is there without the dashboard's layout: the brand and the main pages.
    const header = page.getByTestId("not-found-header");
    await expect(header.getByRole("link", { name: "Receipt" })).toHaveAttribute("href", "/");
    await expect(header.getByRole("navigation", { name: "Main" }).getByRole("link")).toHaveCount(5);
    await expectNoncePolicy(page, response);
    await expectClientNavigation(page, "Back to the overview", "Overview");
    // 404 documents are logged by Chromium as a failed resource load; that line is the status, not breakage.
    expect(watch.trouble).toEqual([expect.stringMatching(/^console error: Failed to load resource: .* 404/)]);
  });
});
