import { expect, test } from "@playwright/test";
import type { HealthRecord } from "@/lib/contract";
import { liveCase } from "@/tests/support/dashboard-records";
import { ingest, PHONE, signIn, snap } from "./support/dashboard";

// One lifecycle (issue 41 §5): resolving a problem asks about what hangs below it, says what it did, and offers an
// undo that puts everything back; several problems resolve at once.
const run = `${Date.now()}-${Math.random().toString(36).slice(2, 7)}`;

function timeout(server: string, tag: string): HealthRecord {
  const record = liveCase(`lifecycle-${run}-${tag}`, "effect_unknown");
  return { ...record, session: { ...record.session, server: { name: server, version: "1.0.0" } } };
}
const slowRead = { timeout: 20_000 };

test("resolve with cascade: the question, what it did, and undo", async ({ page }) => {
  test.setTimeout(120_000);
  const server = `e2e-lifecycle-${run}`;
  await signIn(page);
  await ingest(page.request, [timeout(server, "a"), timeout(server, "b")]);
  await page.goto(`/problems?server=${server}`);
  const rows = page.getByRole("list", { name: "Problems" }).getByRole("listitem");
  await expect(rows).toHaveCount(1, slowRead);
  const row = rows.first();

  await row.getByRole("button", { name: "Resolve", exact: true }).click();
  await expect(row.getByText("Also resolve 2 queue items and 2 alerts?")).toBeVisible(slowRead);
  await snap(page, "problem-resolve-confirm");
  await row.getByRole("button", { name: "Resolve all" }).click();
  const notice = page.getByTestId("resolved-notice");
  await expect(notice).toContainText("Resolved 1 problem, 2 queue items and 2 alerts");
  await expect(page.getByText("No open problems")).toBeVisible();
  await snap(page, "problem-resolved-notice");
  const queue = await (
    await page.request.get("/api/v1/queues/effect-unknown?status=resolved&limit=200")
  ).json();
  const resolvedHere = queue.entries.filter((entry: { chain: { serverName?: string; server?: string } }) =>
    JSON.stringify(entry.chain).includes(server),
  );
  expect(resolvedHere).toHaveLength(2);

  await notice.getByRole("button", { name: "Undo" }).click();
  await expect(notice).toContainText("Undone: reopened 1 problem, 2 queue items and 2 alerts");
  await expect(rows).toHaveCount(1, slowRead);
  await expect(rows.first()).toHaveAttribute("data-status", "open");
  const below = await (
    await page.request.get(
      `/api/v1/problems/below?key=${await rows.first().getAttribute("data-problem-key")}`,
    )
  ).json();
  expect(below).toMatchObject({ items: 2, alerts: 2 });
});

test("bulk resolve of selected problems, at 390 px too", async ({ page }) => {
  test.setTimeout(120_000);
  const prefix = `e2e-bulk-${run}`;
  await signIn(page);
  await ingest(page.request, [timeout(`${prefix}-1`, "c"), timeout(`${prefix}-2`, "d")]);
  await page.setViewportSize(PHONE);
  await page.goto(`/problems?text=${prefix}`);
  const rows = page.getByRole("list", { name: "Problems" }).getByRole("listitem");
  await expect(rows).toHaveCount(2, slowRead);
  for (const row of await rows.all()) await row.getByRole("checkbox").check();
  const bar = page.getByRole("region", { name: "Selected problems" });
  await expect(bar).toContainText("2 selected");
  await bar.getByRole("button", { name: "Resolve selected" }).click();
  await expect(bar.getByText("Also resolve 2 queue items and 2 alerts?")).toBeVisible(slowRead);
  await bar.getByRole("button", { name: "Resolve all" }).click();
  await expect(page.getByTestId("resolved-notice")).toContainText(
    "Resolved 2 problems, 2 queue items and 2 alerts",
  );
  await expect(page.getByText("No open problems")).toBeVisible();
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width).toBeLessThanOrEqual(PHONE.width);
});

test("a queue item's one-click resolve: what it did, and undo", async ({ page }) => {
  test.setTimeout(120_000);
  const record = timeout(`e2e-item-${run}`, "item");
  await signIn(page);
  await ingest(page.request, [record]);
  await page.goto("/queues/effect-unknown");
  await page.locator(`tr[data-chain-id="${record.chainId}"]`).click();
  const panel = page.getByTestId("triage-panel");
  await panel.getByRole("button", { name: "Resolve", exact: true }).click();
  const notice = panel.getByTestId("resolved-notice");
  await expect(notice).toContainText("Resolved 1 queue item and 1 alert");
  await expect(panel.getByTestId("triage-status")).toContainText("resolved by admin");
  await notice.getByRole("button", { name: "Undo" }).click();
  await expect(notice).toContainText("Undone: reopened 1 queue item and 1 alert");
  await expect(panel.getByTestId("triage-status")).toContainText("open");
  await expect(page.locator(`tr[data-chain-id="${record.chainId}"]`)).toBeVisible();
});

test("a problem gets an owner, and 'Assigned to me' finds it", async ({ page }) => {
  test.setTimeout(120_000);
  const server = `e2e-owner-${run}`;
  await signIn(page);
  await ingest(page.request, [timeout(server, "owner")]);
  await page.goto(`/problems?server=${server}`);
  const row = page.getByRole("list", { name: "Problems" }).getByRole("listitem").first();
  await row.getByRole("button", { name: "Assign to me" }).click();
  await expect(row.getByRole("button", { name: "Unassign" })).toBeVisible(slowRead);
  await expect(row.getByRole("combobox")).toHaveAttribute("placeholder", "admin");
  await page.getByLabel("Assigned to me").check();
  await expect(page).toHaveURL(/assignee=me/);
  await expect(page.getByRole("list", { name: "Problems" }).getByRole("listitem")).toHaveCount(1, slowRead);
});
