import { expect as baseExpect, type Page, test } from "@playwright/test";
import { AUTO_REFRESH_MS } from "@/components/ui/use-auto-refresh";
import type { HealthRecord } from "@/lib/contract";
import { liveCase, liveSeedCases } from "@/tests/support/dashboard-records";
import { ingest, signIn, snap } from "./support/dashboard";

// Ids and a label of this run's own: the e2e database is shared with every other spec.
const run = `search-${Date.now()}`;
const cases = liveSeedCases(run).map((c) => ({
  ...c,
  record: { ...c.record, labels: { ...c.record.labels, spec: run } },
}));

function withRequestId(tag: string, requestId: string): HealthRecord {
  const record = liveCase(`${run}-${tag}`, "false_success");
  if (!record.call) throw new Error("the false_success seed case has a call");
  record.call.requestId = requestId;
  record.call.operationKey = `op:${run}-${tag}`;
  return { ...record, labels: { ...record.labels, spec: run } };
}
const unique = withRequestId("unique", `req-${run}-unique`);
const sharedA = withRequestId("shared-a", `req-${run}-shared`);
const sharedB = withRequestId("shared-b", `req-${run}-shared`);

// A shared two-core machine can take seconds per page: give each flow room rather than flake.
test.describe.configure({ timeout: 180_000 });
const expect = baseExpect.configure({ timeout: 15_000 });

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

test.beforeAll(async ({ browser }) => {
  const page = await browser.newPage();
  await signIn(page);
  await ingest(page.request, [...cases.map((c) => c.record), unique, sharedA, sharedB]);
  await page.close();
});

test("`/` focuses the header search; a request id that names one chain opens it", async ({ page }) => {
  await signIn(page);
  await page.goto("/coverage");
  const box = page.getByRole("combobox", { name: /Find a chain/ });
  // The shortcut is the header's script: a key pressed before the page hydrates reaches nothing, so press again.
  await expect(async () => {
    await page.locator("body").press("/");
    await expect(box).toBeFocused({ timeout: 1000 });
  }).toPass({ timeout: 15_000 });
  await box.fill(`req-${run}-unique`);
  await box.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/chains/${escapeRegExp(encodeURIComponent(unique.chainId))}$`));
  await expect(page).toHaveTitle(`Chain ${unique.chainId} · Receipt`);
  await expect(page.getByRole("heading", { level: 1, name: unique.chainId })).toBeVisible();
});

test("an id several chains share opens the results page, with its own title", async ({ page }) => {
  await signIn(page, "/");
  const box = page.getByRole("combobox", { name: /Find a chain/ });
  await box.fill(`req-${run}-shared`);
  await box.press("Enter");
  await expect(page).toHaveURL(/\/search\?q=/);
  await expect(page).toHaveTitle(`Search “req-${run}-shared” · Receipt`);
  await expect(page.getByRole("heading", { name: "JSON-RPC request id" })).toBeVisible();
  await expect(page.locator(`tr[data-chain-id="${sharedA.chainId}"]`)).toBeVisible();
  await expect(page.locator(`tr[data-chain-id="${sharedB.chainId}"]`)).toBeVisible();
  await snap(page, "search-results");
});

const rowStates = (page: Page) =>
  page
    .locator("tbody tr[data-chain-id]")
    .evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll("[data-state]")].map((b) => b.getAttribute("data-state"))),
    );

test("several states at once through the form, with a total and the danger order", async ({ page }) => {
  await signIn(page);
  await page.goto(`/chains?label=spec:${run}`);
  await expect(page.getByTestId("chain-total")).toHaveText(`${cases.length + 3} chains`);
  await page.getByRole("checkbox", { name: "False success" }).check();
  await expect(page).toHaveURL(/state=false_success(&|$)/);
  await page.getByRole("checkbox", { name: "Effect unknown" }).check();
  await expect(page).toHaveURL(/state=effect_unknown%2Cfalse_success/);
  await expect(page.getByTestId("chain-total")).toHaveText("5 chains");
  await expect
    .poll(async () =>
      (await rowStates(page)).every((s) => s.includes("false_success") || s.includes("effect_unknown")),
    )
    .toBe(true);
  await page.getByLabel("Sort").selectOption("danger");
  await expect(page).toHaveURL(/sort=danger/);
  await expect.poll(async () => (await rowStates(page))[0]?.[0]).toBe("effect_unknown");
  await snap(page, "chains-multi-state");
});

test("a relative range stays relative in the URL, through a reload", async ({ page }) => {
  await signIn(page);
  await page.goto(`/chains?label=spec:${run}&since=1h`);
  await expect(page.getByRole("button", { name: "Last 1 h" })).toHaveAttribute("aria-pressed", "true");
  await page.getByRole("button", { name: "Last 24 h" }).click();
  await expect(page).toHaveURL(/since=24h$/);
  await page.reload();
  await expect(page).toHaveURL(/since=24h$/);
  await expect(page.getByRole("button", { name: "Last 24 h" })).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByTestId("chain-total")).toHaveText(`${cases.length + 3} chains`);
});

test("lists say when they were updated, refresh themselves, and Pause stops it", async ({ page }) => {
  // The page's own clock, moved on by hand: the refresh interval passes without the test waiting it out.
  await page.clock.install();
  await signIn(page, "/");
  await page.evaluate(() => window.localStorage.removeItem("receipt.autoRefresh"));
  await page.goto(`/chains?label=spec:${run}`);
  const status = page.getByTestId("refresh-status");
  await expect(status).toContainText(/Updated \d+ s ago/);
  const chainsRead = (r: { url: () => string }) => r.url().includes("/api/v1/chains?");
  // Live: the list is read again within the interval, by itself.
  const reread = page.waitForRequest(chainsRead, { timeout: 20_000 });
  await page.clock.fastForward(AUTO_REFRESH_MS);
  await reread;
  await expect(status).toContainText(/Updated \d+ s ago/); // that read has landed, before the clock moves again
  await status.getByRole("button", { name: "Pause" }).click();
  await expect(status).toContainText("paused");
  const reads: string[] = [];
  page.on("request", (r) => {
    if (chainsRead(r)) reads.push(r.url());
  });
  // Past the interval and then some: a read would show as "Updating…" and then a fresh "Updated 0 s ago".
  await page.clock.fastForward(AUTO_REFRESH_MS + 2_000);
  await expect(status).toContainText(/Updated (1[7-9]|[2-9]\d) s ago/);
  expect(reads).toEqual([]);
  const resumed = page.waitForRequest(chainsRead, { timeout: 20_000 });
  await status.getByRole("button", { name: "Resume" }).click();
  await page.clock.fastForward(AUTO_REFRESH_MS);
  await resumed;
});

test("every dashboard page has a title of its own", async ({ page }) => {
  await signIn(page);
  const routes: [string, string][] = [
    ["/", "Overview · Receipt"],
    ["/chains", "Chains · Receipt"],
    [`/chains/${encodeURIComponent(unique.chainId)}`, `Chain ${unique.chainId} · Receipt`],
    [`/sessions/${encodeURIComponent(unique.session.id)}`, `Session ${unique.session.id} · Receipt`],
    ["/queues/effect-unknown", "Effect unknown · Receipt"],
    ["/queues/false-success", "False success · Receipt"],
    ["/coverage", "Outcome coverage · Receipt"],
    ["/silences", "Silences · Receipt"],
    ["/routing", "Routing · Receipt"],
    ["/settings/keys", "Ingestion keys · Receipt"],
    ["/search?q=x", "Search “x” · Receipt"],
  ];
  const titles: string[] = [];
  for (const [path, title] of routes) {
    await page.goto(path);
    await expect(page, path).toHaveTitle(title);
    titles.push(await page.title());
  }
  expect(new Set(titles).size).toBe(routes.length);
});

test("an unknown chain id answers 404 with a page that says so", async ({ page }) => {
  await signIn(page);
  const response = await page.goto(`/chains/chain:${run}-never-recorded`);
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "No chain with this id" })).toBeVisible();
  await expect(page).toHaveTitle("Chain not found · Receipt");
  await expect(page.getByTestId("chain-not-found").getByRole("link", { name: "Chains" })).toBeVisible();
  const session = await page.goto(`/sessions/sess:${run}-never-recorded`);
  expect(session?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "No session with this id" })).toBeVisible();
  await page.goto(`/chains/chain:${run}-never-recorded`);
  await snap(page, "chain-404");
});
