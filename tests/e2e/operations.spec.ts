import { expect as baseExpect, test } from "@playwright/test";
import type { HealthRecord } from "@/lib/contract";
import { liveCase } from "@/tests/support/dashboard-records";
import { ingest, signIn } from "./support/dashboard";

// The operation page: one operation key's status, attempts and guard decisions, reached from the chain page.
const run = `operations-${Date.now()}`;
const key = `op:${run}`;

function attempt(state: string): HealthRecord {
  const record = liveCase(`${run}-${state}`, state);
  if (!record.call) throw new Error("a seed case without a call");
  record.call.operationKey = key;
  return record;
}
const timeout = attempt("effect_unknown");

test.describe.configure({ timeout: 180_000 });
const expect = baseExpect.configure({ timeout: 15_000 });

test.beforeAll(async ({ browser }) => {
  const page = await browser.newPage();
  await signIn(page);
  await ingest(page.request, [timeout]);
  await page.close();
});

test("the chain page links to its operation, which shows it in doubt with the attempt", async ({ page }) => {
  await signIn(page);
  await page.goto(`/chains/${encodeURIComponent(timeout.chainId)}`);
  await page.getByRole("link", { name: key }).click();
  await expect(page).toHaveURL(
    new RegExp(`/operations/${encodeURIComponent(key).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`),
  );
  await expect(page).toHaveTitle(`Operation ${key} · Receipt`);
  await expect(page.getByTestId("operation-status")).toContainText("in_doubt");
  const attempts = page.getByRole("table", { name: "Attempts of this operation" });
  await expect(attempts.getByRole("link", { name: timeout.chainId })).toBeVisible();
  await expect(attempts).toContainText("unknown");
});

test("a key never seen has a page too: status none, no lease", async ({ page }) => {
  await signIn(page);
  await page.goto(`/operations/${encodeURIComponent(`${key}-never`)}`);
  await expect(page.getByTestId("operation-status")).toContainText("none");
  await expect(page.getByText("No lease was ever granted.")).toBeVisible();
});
