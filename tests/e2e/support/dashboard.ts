import { mkdirSync } from "node:fs";
import { type APIRequestContext, type Cookie, expect, type Page } from "@playwright/test";
import type { HealthRecord } from "@/lib/contract";
import { E2E_ADMIN } from "./credentials";

/**
 * Signs in as the admin; with `next`, lands there. The first call in a Playwright worker signs in through the form,
 * as a person would; later calls reuse that session's cookie (sign-in itself is tested in auth.spec.ts), checked
 * with one API read rather than a page load (a page load is the costliest step of a browser test, and most tests go
 * to their own page next), and go through the form again once the session has ended (a test signed it out).
 */
export async function signIn(page: Page, next?: string) {
  if (adminSession) {
    await page.context().addCookies(adminSession);
    if ((await page.request.get("/api/v1/me/sessions")).ok()) {
      if (next) await page.goto(next);
      if (!next || new URL(page.url()).pathname === next.split("?")[0]) return;
    }
    adminSession = null;
  }
  const landing = next ?? "/";
  await page.goto(landing === "/" ? "/sign-in" : `/sign-in?next=${encodeURIComponent(landing)}`);
  await untilHydrated(page);
  await page.getByLabel("Username").fill(E2E_ADMIN.username);
  await page.getByLabel("Password").fill(E2E_ADMIN.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => url.pathname === landing.split("?")[0]);
  adminSession = await page.context().cookies();
}

let adminSession: Cookie[] | null = null;

/**
 * Waits until the page's root client component has hydrated (`data-hydrated`, components/ui/use-hydrated.ts): a
 * click or keystroke before that reaches no handler (a sign-in form would submit itself as a plain GET).
 */
export async function untilHydrated(page: Page) {
  await expect(page.locator("[data-hydrated='true']").first()).toBeAttached({ timeout: 30_000 });
}

let ingestKey: string | null = null;

/** Posts records with an ingestion key made through the dashboard's own key API (the page's session cookie). */
export async function ingest(request: APIRequestContext, records: HealthRecord[]) {
  if (!ingestKey) {
    const created = await request.post("/api/v1/keys", {
      data: { name: `e2e-agent-${Date.now()}`, scopes: ["ingest"] },
    });
    expect(created.status()).toBe(201);
    ingestKey = ((await created.json()) as { key: string }).key;
  }
  const response = await request.post("/api/v1/records", {
    data: { records },
    headers: { authorization: `Bearer ${ingestKey}` },
  });
  expect(response.status(), await response.text()).toBe(200);
}

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 900 };

/** `npm test` takes no pictures (RECEIPT_E2E_SCREENS=off): nobody looks at them there, and they cost CPU. */
const takeScreens = process.env.RECEIPT_E2E_SCREENS !== "off";

/**
 * Saves test-results/screens/<name>-1280.png and <name>-390.png (full page), waiting for loading placeholders to
 * go so the picture shows data, not skeletons. Without pictures, the page still has to settle at both widths.
 */
export async function snap(page: Page, name: string) {
  if (takeScreens) mkdirSync("test-results/screens", { recursive: true });
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await expect(page.getByRole("status").filter({ hasText: /^Loading/ })).toHaveCount(0);
    if (!takeScreens) continue;
    await page.waitForTimeout(300); // the chart lays out after a resize
    await page.screenshot({ path: `test-results/screens/${name}-${viewport.width}.png`, fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
}
