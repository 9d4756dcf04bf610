import { expect, test } from "@playwright/test";
import type { HealthRecord } from "@/lib/contract";
import { liveCase } from "@/tests/support/dashboard-records";
import { ingest, signIn, snap } from "./support/dashboard";

// Unique per load: the e2e database is shared by every spec, and Playwright may re-run beforeAll after a failure.
const run = `${Date.now()}-${Math.random().toString(36).slice(2, 7)}`;
const server = `e2e-problems-${run}`;

/** A timed-out write (effect_unknown) on this spec's own server. */
function timeout(tag: string): HealthRecord {
  const record = liveCase(`problems-${run}-${tag}`, "effect_unknown");
  return { ...record, session: { ...record.session, server: { name: server, version: "1.0.0" } } };
}

test("a problem: listed with its sparkline, resolved, regressed by a new chain, and opening its chains", async ({
  page,
}) => {
  test.setTimeout(180_000); // four screenshots at two sizes and three ingests on a shared machine
  const first = [timeout("a"), timeout("b")];
  await signIn(page);
  await ingest(page.request, first);
  await page.goto(`/problems?server=${server}`);
  await expect(page).toHaveTitle(/Problems/);
  const rows = page.getByRole("list", { name: "Problems" }).getByRole("listitem");
  const slowRead = { timeout: 20_000 }; // the grouping read, on a machine shared with other builds
  await expect(rows).toHaveCount(1, slowRead);
  const row = rows.first();
  await expect(row).toContainText(server);
  await expect(row).toContainText("2 chains");
  await expect(row.getByTestId("problem-sparkline")).toBeVisible();
  await expect(row.getByTestId("problem-sparkline").locator("polyline")).toHaveAttribute("points", /\d/);
  await snap(page, "problems");

  await row.getByRole("button", { name: "Resolve", exact: true }).click();
  await row.getByRole("button", { name: "Only the problem" }).click();
  await expect(page.getByText("No open problems")).toBeVisible();
  await page
    .getByRole("navigation", { name: "Problem status" })
    .getByRole("link", { name: "Resolved" })
    .click();
  await expect(page).toHaveURL(/status=resolved/);
  await expect(rows.first()).toHaveAttribute("data-status", "resolved", slowRead);
  await expect(rows.first()).toContainText("resolved by admin");
  await snap(page, "problems-resolved");

  const comeback = timeout("c");
  await ingest(page.request, [comeback]);
  await page.getByRole("navigation", { name: "Problem status" }).getByRole("link", { name: "Open" }).click();
  await expect(page).toHaveURL(/status=open/);
  await page.reload(); // the list polls every 30 s; a reload shows the new chain at once
  await expect(rows.first()).toHaveAttribute("data-status", "regressed", slowRead);
  await expect(rows.first().getByText("Regressed", { exact: true })).toBeVisible();
  await expect(rows.first()).toContainText("3 chains");
  await snap(page, "problems-regressed");

  await rows.first().getByRole("link").first().click();
  await expect(page).toHaveURL(/\/chains\?/);
  const url = new URL(page.url());
  expect(url.searchParams.get("server")).toBe(server);
  expect(url.searchParams.get("state")).toBe("effect_unknown");
  expect(url.searchParams.get("reason")).toBeTruthy();
  for (const record of [...first, comeback]) {
    await expect(page.locator(`tr[data-chain-id="${record.chainId}"]`)).toBeVisible();
  }
});

test("the window, sort and filters live in the URL", async ({ page }) => {
  await signIn(page);
  await ingest(page.request, [timeout("filters")]);
  await page.goto(`/problems?server=${server}&window=24h`);
  await expect(
    page.getByRole("navigation", { name: "Time window" }).getByRole("link", { name: "24 h" }),
  ).toHaveAttribute("aria-current", "true");
  await page.getByLabel("Sort by").selectOption("count");
  await expect(page).toHaveURL(/sort=count/);
  await page.getByLabel("Contains").fill("no-such-thing-here");
  await page.getByLabel("Contains").press("Enter");
  await expect(page).toHaveURL(/text=no-such-thing-here/);
  await expect(page.getByText("No open problems")).toBeVisible();
});

test("the effect-unknown queue keeps a reconciled chain under Resolved (with its count) and in All", async ({
  page,
}) => {
  const reconciled = liveCase(`problems-queue-${run}`, "effect_unknown");
  await signIn(page);
  await ingest(page.request, [reconciled]);
  const answer = await page.request.post(
    `/api/v1/chains/${encodeURIComponent(reconciled.chainId)}/reconcile`,
    {
      data: { status: "absent" },
    },
  );
  expect(answer.status(), await answer.text()).toBe(200);
  const row = page.locator(`tr[data-chain-id="${reconciled.chainId}"]`);
  const tabs = page.getByRole("navigation", { name: "Triage status" });

  await page.goto("/queues/effect-unknown?status=resolved");
  await expect(row).toBeVisible();
  await expect(row).toContainText("resolved");
  await expect(tabs.getByRole("link", { name: /Resolved/ })).not.toContainText(/Resolved\s*0$/);
  await snap(page, "queue-resolved");
  await tabs.getByRole("link", { name: /All/ }).click();
  await expect(page).toHaveURL(/status=all/);
  await expect(row).toBeVisible();
  await snap(page, "queue-all");
  await tabs.getByRole("link", { name: /Open/ }).click();
  await expect(page).toHaveURL(/status=open/);
  await expect(page.getByRole("status").filter({ hasText: /^Loading/ })).toHaveCount(0);
  await expect(row).toHaveCount(0);
});
