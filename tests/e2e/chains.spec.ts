import { expect, test } from "@playwright/test";
import { liveSeedCases } from "@/tests/support/dashboard-records";
import { ingest, signIn, snap } from "./support/dashboard";

// A label of their own, so this spec's rows can be singled out in a database other specs also fill. Unique per
// load: Playwright runs beforeAll again in a fresh worker after a failure.
const run = `chains-${Date.now()}`;
const cases = liveSeedCases(run).map((c) => ({
  ...c,
  record: { ...c.record, labels: { ...c.record.labels, spec: run } },
}));

/** The states shown in each row (its state, and its shadowed state when it has one), once the list has settled. */
const rowStates = (page: import("@playwright/test").Page) =>
  page
    .locator("tbody tr[data-chain-id]")
    .evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll("[data-state]")].map((b) => b.getAttribute("data-state"))),
    );
const chainOf = (state: string) => cases.find((c) => c.expectedState === state)?.record.chainId ?? "";

test.beforeAll(async ({ browser }) => {
  const page = await browser.newPage();
  await signIn(page);
  await ingest(
    page.request,
    cases.map((c) => c.record),
  );
  await page.close();
});

test("filter the chain list by state through the form: the URL follows, every row is in that state", async ({
  page,
}) => {
  await signIn(page);
  await page.goto("/chains");
  await page.getByRole("checkbox", { name: "Tool failed" }).check();
  await expect(page).toHaveURL(/\/chains\?state=tool_failed$/);
  await expect(page.locator(`tr[data-chain-id="${chainOf("tool_failed")}"]`)).toBeVisible();
  // Polled: the previous page stays on screen while the filtered one loads.
  await expect
    .poll(async () => (await rowStates(page)).every((states) => states.includes("tool_failed")))
    .toBe(true);
  await snap(page, "chains-filtered");
});

test("a link with filters reproduces the view (state and label from the URL)", async ({ page }) => {
  await signIn(page);
  await page.goto("/chains?state=stale_catalog&label=team:reports");
  await expect(page.getByRole("checkbox", { name: "Stale catalog" })).toBeChecked();
  await expect(page.getByRole("list", { name: "Label filters" })).toContainText("team:reports");
  await expect(page.locator(`tr[data-chain-id="${chainOf("stale_catalog")}"]`)).toBeVisible();
  await expect
    .poll(async () => (await rowStates(page)).every((states) => states.includes("stale_catalog")))
    .toBe(true);
  await page.goto("/chains?state=not_a_state");
  await expect(page.getByRole("alert").filter({ hasText: "Could not load chains" })).toContainText(
    "$.query.state",
  );
});

test("the table is keyboard-navigable and sorts by time", async ({ page }) => {
  await signIn(page);
  await page.goto(`/chains?label=spec:${run}`);
  const rows = page.locator("tbody tr[data-chain-id]");
  await expect(rows.first()).toBeVisible();
  await expect(rows).toHaveCount(cases.length);
  const newestFirst = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-chain-id")));
  await page.getByRole("button", { name: /Observed/ }).click();
  await expect(page).toHaveURL(/order=asc/);
  await expect
    .poll(() => rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-chain-id"))))
    .toEqual([...newestFirst].reverse());
  await rows.first().focus();
  await page.keyboard.press("ArrowDown");
  const second = await rows.nth(1).getAttribute("data-chain-id");
  await expect(rows.nth(1)).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(
    new RegExp(`/chains/${encodeURIComponent(second ?? "").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`),
  );
});
