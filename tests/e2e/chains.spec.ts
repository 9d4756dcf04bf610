import { expect, test } from "@playwright/test";
import { liveSeedCases } from "@/tests/support/dashboard-records";
import { ingest, signIn, snap } from "./support/dashboard";

// A label of their own, so this spec's rows can be singled out in a database other specs also fill.
const cases = liveSeedCases(`chains-${Date.now()}`).map((c) => ({
  ...c,
  record: { ...c.record, labels: { ...c.record.labels, spec: "chains" } },
}));
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
  await page.getByLabel("State").selectOption("tool_failed");
  await expect(page).toHaveURL(/\/chains\?state=tool_failed$/);
  const rows = page.locator("tbody tr[data-chain-id]");
  await expect(page.locator(`tr[data-chain-id="${chainOf("tool_failed")}"]`)).toBeVisible();
  for (const row of await rows.all()) {
    await expect(row.locator("[data-state]").first()).toHaveAttribute("data-state", "tool_failed");
  }
  await snap(page, "chains-filtered");
});

test("a link with filters reproduces the view (state and label from the URL)", async ({ page }) => {
  await signIn(page);
  await page.goto("/chains?state=stale_catalog&label=team:reports");
  await expect(page.getByLabel("State")).toHaveValue("stale_catalog");
  await expect(page.getByRole("list", { name: "Label filters" })).toContainText("team:reports");
  await expect(page.locator(`tr[data-chain-id="${chainOf("stale_catalog")}"]`)).toBeVisible();
  for (const row of await page.locator("tbody tr[data-chain-id]").all()) {
    await expect(row.locator("[data-state]").first()).toHaveAttribute("data-state", "stale_catalog");
  }
  await page.goto("/chains?state=not_a_state");
  await expect(page.getByRole("alert").filter({ hasText: "Could not load chains" })).toContainText(
    "$.query.state",
  );
});

test("the table is keyboard-navigable and sorts by time", async ({ page }) => {
  await signIn(page);
  await page.goto("/chains?label=spec:chains");
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
