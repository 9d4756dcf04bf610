import { expect, type Page, test } from "@playwright/test";
import { STATES } from "@/lib/contract/states";
import { liveSeedCases } from "@/tests/support/dashboard-records";
import { ingest, signIn, snap } from "./support/dashboard";

async function tileCounts(page: Page): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const state of STATES) {
    counts[state] = Number((await page.getByTestId(`count-${state}`).textContent())?.replace(/,/g, ""));
  }
  return counts;
}

test("the overview's counts per state match what was ingested, and each count links to its chains", async ({
  page,
}) => {
  await signIn(page, "/");
  await expect(page.getByTestId("count-healthy")).toBeVisible();
  const before = await tileCounts(page);
  const total = Number(await page.getByTestId("total-count").textContent());

  const cases = liveSeedCases(`overview-${Date.now()}`);
  await ingest(
    page.request,
    cases.map((c) => c.record),
  );
  await page.reload();
  await expect(page.getByTestId("total-count")).toHaveText(String(total + cases.length));
  const after = await tileCounts(page);
  for (const state of STATES) {
    const ingested = cases.filter((c) => c.expectedState === state).length;
    expect(after[state], state).toBe((before[state] ?? 0) + ingested);
  }
  await expect(page.getByTestId("trend-chart").locator("svg").first()).toBeVisible();
  await expect(page.getByRole("heading", { name: "Newest chains that are not green" })).toBeVisible();
  await snap(page, "overview");

  await page.getByRole("link", { name: /^False success: / }).click();
  await expect(page).toHaveURL(/\/chains\?state=false_success&since=24h(&|$)/);
  await expect(page.getByRole("checkbox", { name: "False success" })).toBeChecked();
  await expect(page.locator("tbody tr[data-chain-id]").first()).toBeVisible();
});

test("the window lives in the URL", async ({ page }) => {
  await signIn(page, "/");
  await page.getByRole("link", { name: "7d", exact: true }).click();
  await expect(page).toHaveURL(/\?window=7d$/);
  await expect(page.getByRole("link", { name: "7d", exact: true })).toHaveAttribute("aria-current", "true");
  await expect(page.getByText("Chains observed in the last 7 days")).toBeVisible();
});
