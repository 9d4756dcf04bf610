import { expect, test } from "@playwright/test";
import { liveCase, unseenLayersCase } from "@/tests/support/dashboard-records";
import { ingest, signIn, snap } from "./support/dashboard";

// Contract v1.2: a layer the reporter did not see is drawn as "not observed" — neither failed nor passed — with what
// would make it visible, and coverage shows the share of calls with unseen layers. Unique per load (Playwright re-runs
// beforeAll in a fresh worker after a failure, and ids must not repeat).
const tag = `unseen-${Date.now()}`;
const unseen = unseenLayersCase(tag);
const seen = liveCase(tag, "healthy");

test.beforeAll(async ({ browser }) => {
  const page = await browser.newPage();
  await signIn(page);
  await ingest(page.request, [unseen, seen]);
  await page.close();
});

test("an unseen handshake and tool list are drawn 'Not observed', with what would make them visible", async ({
  page,
}) => {
  await signIn(page);
  await page.goto(`/chains/${encodeURIComponent(unseen.chainId)}`);
  const session = page.locator('[data-layer="session"]');
  const catalog = page.locator('[data-layer="catalog"]');
  await expect(session).toHaveAttribute("data-status", "not_observed");
  await expect(catalog).toHaveAttribute("data-status", "not_observed");
  await expect(session).toContainText("Not observed");
  await expect(session.getByRole("note", { name: "Session not observed" })).toContainText(
    "initialize span in the same trace",
  );
  await expect(catalog.getByRole("note", { name: "Catalog not observed" })).toContainText("tools/list span");
  // Neither failed nor passed: its own style, not the failure's or the pass's.
  const sessionBorder = await session.evaluate((el) => getComputedStyle(el).borderLeftStyle);
  expect(sessionBorder).toBe("dashed");
  // The unseen handshake is not reported as a broken one, and nothing is called complete.
  const missing = page.getByRole("region", { name: "What is missing" });
  await expect(missing).not.toContainText("The handshake never finished");
  await expect(missing).not.toContainText("The tool list was never read");
  await expect(missing).not.toContainText("Nothing: every layer has its evidence");
  await expect(missing.getByRole("list", { name: "Not observed" })).toContainText("coverage gap");
  // The seen layers after it passed; the state is unverified, decided in the session layer.
  await expect(page.locator('[data-layer="request"]')).toHaveAttribute("data-status", "ok");
  await expect(page.locator('[data-layer="outcome"]')).toHaveAttribute("data-status", "ok");
  const verdict = page.getByRole("region", { name: "Verdict" });
  await expect(verdict.locator('[data-state="unverified"]').first()).toBeVisible();
  await expect(verdict).toContainText("a layer was not observed");
  await snap(page, "chain-not-observed");
});

test("coverage lists the share of calls with unseen layers per server and tool", async ({ page }) => {
  await signIn(page);
  await page.goto("/coverage?window=all");
  const table = page.getByRole("table", { name: "Outcome coverage per server and tool" });
  await expect(table.getByRole("columnheader", { name: "Unseen layers" })).toBeVisible();
  const row = table.getByRole("row").filter({ has: page.getByRole("rowheader", { name: /sampled_export/ }) });
  await expect(row.locator('[data-column="unseen-layers"]')).toContainText("100%");
  // Its receipt passed: the call reached the outcome check, it is only not green.
  await expect(row.getByRole("cell").nth(1)).toContainText("100%");
  await expect(row.locator('[data-column="unseen-layers"]')).toContainText("handshake 1, tool list 1");
  const seenRow = table
    .getByRole("row")
    .filter({ has: page.getByRole("rowheader", { name: new RegExp(seen.call?.tool ?? "none") }) });
  await expect(seenRow.locator('[data-column="unseen-layers"]').first()).not.toContainText("handshake");
  await snap(page, "coverage-unseen-layers");
});
