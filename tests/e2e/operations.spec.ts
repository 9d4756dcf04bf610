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

test("a lease that expired with no record is settled from the operation page", async ({ page }) => {
  await signIn(page);
  const lost = `op:${run}-lost`;
  // An agent asks the guard with a key of its own, gets a 1 ms lease, and dies before any record.
  const created = await page.request.post("/api/v1/keys", {
    data: { name: `e2e-guard-${Date.now()}`, scopes: ["ingest"] },
  });
  const agentKey = ((await created.json()) as { key: string }).key;
  const asked = await page.request.post(`/api/v1/operations/${encodeURIComponent(lost)}/attempts`, {
    data: { tool: "send_invoice", holder: "agent-that-died", leaseMs: 1 },
    headers: { authorization: `Bearer ${agentKey}` },
  });
  expect(asked.status(), await asked.text()).toBe(201);
  await page.goto(`/operations/${encodeURIComponent(lost)}`);
  await expect(page.getByTestId("operation-status")).toContainText("in_doubt");
  const form = page.getByRole("form", { name: "Settle the expired lease" });
  await form.getByLabel("What proves it was written").fill("invoice INV-4711 in the ledger");
  await form.getByRole("button", { name: "Committed" }).click();
  await expect(page.getByTestId("lease-settled")).toContainText("the destination shows the write committed");
  await expect(page.getByTestId("operation-status")).toContainText("committed");
});
