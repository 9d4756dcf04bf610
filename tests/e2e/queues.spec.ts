import { expect, test } from "@playwright/test";
import { liveCase } from "@/tests/support/dashboard-records";
import { ingest, signIn, snap } from "./support/dashboard";

// Unique per load: Playwright re-runs beforeAll in a fresh worker after a failure, and ids must not repeat.
const tag = `queues-${Date.now()}`;

const timeout = liveCase(tag, "effect_unknown");
const falseSuccess = liveCase(tag, "false_success");

test.beforeAll(async ({ browser }) => {
  const page = await browser.newPage();
  await signIn(page);
  await ingest(page.request, [timeout, falseSuccess]);
  await page.close();
});

test("reconcile an effect-unknown chain as absent and watch it move to tool_failed", async ({ page }) => {
  await signIn(page);
  await page.goto("/queues/effect-unknown");
  const row = page.locator(`tr[data-chain-id="${timeout.chainId}"]`);
  await row.click();
  await expect(page).toHaveURL(/chain=/);
  const panel = page.getByTestId("triage-panel");
  await expect(panel.getByRole("heading", { name: "Reconcile" })).toBeVisible();
  await snap(page, "queue-effect-unknown");
  await panel.getByLabel("nothing: the write did not happen (absent)").check();
  await panel.getByLabel("Note (optional)").fill("no report row for op:weekly-digest-w48");
  await panel.getByRole("button", { name: "Record and re-classify" }).click();
  const outcome = panel.getByTestId("reconcile-outcome");
  await expect(outcome.locator('[data-state="effect_unknown"]')).toBeVisible();
  await expect(outcome.locator('[data-state="tool_failed"]')).toBeVisible();
  await expect(outcome).toContainText("Retry is safe");
  await expect(row).toHaveCount(0); // gone from the open list
  await expect(panel).toContainText("no longer in the effect unknown queue");
  await expect(panel.getByTestId("audit-trail")).toContainText(
    "admin reconciled: destination absent → tool_failed",
  );

  await panel.getByRole("link", { name: "See the evidence chain →" }).click();
  await expect(
    page.getByRole("region", { name: "Verdict" }).locator('[data-state="tool_failed"]').first(),
  ).toBeVisible();
  await expect(page.locator('[data-layer][aria-current="step"]')).toHaveAttribute("data-layer", "effect");
  await expect(page.locator('[data-layer="effect"]')).toContainText("admin (reconciliation)");
  await expect(page.getByRole("region", { name: "Timeline" })).toContainText("State change (reconcile)");
  await snap(page, "chain-reconciled");
});

test("acknowledge, assign, note and resolve a false-success item; the audit trail keeps who and when", async ({
  page,
}) => {
  await signIn(page);
  await page.goto("/queues/false-success");
  await page.locator(`tr[data-chain-id="${falseSuccess.chainId}"]`).click();
  const panel = page.getByTestId("triage-panel");
  await panel.getByRole("button", { name: "Acknowledge" }).click();
  await expect(panel.getByTestId("triage-status")).toContainText("acknowledged by admin");
  await panel.getByRole("button", { name: "Assign to me" }).click();
  await expect(panel.getByTestId("audit-trail")).toContainText("admin assigned to admin");
  await panel.getByLabel("Note").fill("draft row missing in reports DB");
  await panel.getByRole("button", { name: "Add note" }).click();
  await expect(panel.getByTestId("audit-trail")).toContainText("draft row missing in reports DB");
  await panel.getByRole("button", { name: "Resolve" }).click();
  await expect(panel.getByTestId("triage-status")).toContainText("resolved by admin");
  const trail = panel.getByTestId("audit-trail").locator("li");
  await expect(trail).toHaveCount(4);
  await expect(trail.nth(0)).toContainText("admin acknowledged");
  await expect(trail.nth(1)).toContainText("admin assigned to admin");
  await expect(trail.nth(2)).toContainText("admin added a note");
  await expect(trail.nth(3)).toContainText("admin resolved");
  await snap(page, "queue-false-success");

  await expect(page.locator(`tr[data-chain-id="${falseSuccess.chainId}"]`)).toHaveCount(0); // not open any more
  await page.getByRole("link", { name: /^Resolved/ }).click();
  await expect(page.locator(`tr[data-chain-id="${falseSuccess.chainId}"]`)).toBeVisible();

  // Esc closes the side panel (the selection leaves the URL), but not while typing a note.
  await page.locator(`tr[data-chain-id="${falseSuccess.chainId}"]`).click();
  await expect(panel).toBeVisible();
  await panel.getByLabel("Note").fill("half-typed");
  await panel.getByLabel("Note").press("Escape");
  await expect(panel).toBeVisible();
  await panel.getByRole("heading", { level: 2 }).click();
  await page.keyboard.press("Escape");
  await expect(panel).toHaveCount(0);
  await expect(page).not.toHaveURL(/chain=/);
});
