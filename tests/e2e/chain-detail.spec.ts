import { expect, test } from "@playwright/test";
import { liveCase, shadowedTimeout } from "@/tests/support/dashboard-records";
import { ingest, signIn, snap } from "./support/dashboard";

// Unique per load: Playwright re-runs beforeAll in a fresh worker after a failure, and ids must not repeat.
const tag = `detail-${Date.now()}`;

const timeout = liveCase(tag, "effect_unknown");
const falseSuccess = liveCase(tag, "false_success");
const shadowed = shadowedTimeout(tag);
const healthy = liveCase(tag, "healthy");

test.beforeAll(async ({ browser }) => {
  const page = await browser.newPage();
  await signIn(page);
  await ingest(page.request, [timeout, falseSuccess, shadowed, healthy]);
  await page.close();
});

test("a chain shows its deciding layer and says plainly what is missing", async ({ page }) => {
  await signIn(page);
  await page.goto(`/chains?state=effect_unknown&session=${encodeURIComponent(timeout.session.id)}`);
  await page.locator(`tr[data-chain-id="${timeout.chainId}"]`).click();
  await expect(page.getByRole("heading", { name: timeout.chainId })).toBeVisible();
  const deciding = page.locator('[data-layer][aria-current="step"]');
  await expect(deciding).toHaveAttribute("data-layer", "effect");
  await expect(deciding).toContainText("Deciding layer");
  await expect(deciding).toContainText("effect.unreconciled");
  await expect(deciding).toContainText("Write not reconciled");
  const missing = page.getByRole("region", { name: "What is missing" });
  await expect(missing).toContainText("No response from the server.");
  await expect(missing).toContainText("No destination check: nobody has looked whether the write happened.");
  await expect(missing).toContainText("No outcome receipt yet");
  await expect(page.locator('[data-layer="request"]')).toHaveAttribute("data-status", "missing");
  await expect(page.locator('[data-layer="session"]')).toHaveAttribute("data-status", "ok");
  await expect(page.getByRole("region", { name: "Timeline" })).toContainText(timeout.recordId);
  await snap(page, "chain-effect-unknown");
});

test("a false success from the destination's word is decided in the effect layer (reason prefix)", async ({
  page,
}) => {
  await signIn(page);
  await page.goto(`/chains/${encodeURIComponent(falseSuccess.chainId)}`);
  await expect(page.locator('[data-layer][aria-current="step"]')).toHaveAttribute("data-layer", "effect");
  await expect(page.locator('[data-layer="outcome"]')).toHaveAttribute("data-status", "not_reached");
  await expect(page.getByRole("region", { name: "Verdict" })).toContainText("Destination shows nothing");
  await expect(page.getByRole("region", { name: "What is missing" })).toContainText(
    "The destination shows nothing",
  );
});

test("a shadowed state is shown as loudly as the headline", async ({ page }) => {
  await signIn(page);
  await page.goto(`/chains/${encodeURIComponent(shadowed.chainId)}`);
  const verdict = page.getByRole("region", { name: "Verdict" });
  await expect(verdict.locator('[data-state="needs_auth"]').first()).toBeVisible();
  const note = verdict.getByRole("note");
  await expect(note).toContainText("Shadowed");
  await expect(note.locator('[data-state="effect_unknown"]')).toBeVisible();
  await expect(page.locator('[data-layer="effect"]')).toContainText("Shadowed problem");
  await snap(page, "chain-shadowed");
});

test("the session page lists the session's chains and draws the worst one's evidence", async ({ page }) => {
  await signIn(page);
  await page.goto(`/chains/${encodeURIComponent(healthy.chainId)}`);
  await page.getByRole("link", { name: healthy.session.id }).click();
  await expect(page).toHaveURL(/\/sessions\//);
  await expect(page.locator(`tr[data-chain-id="${healthy.chainId}"]`)).toBeVisible();
  await expect(page.getByRole("heading", { name: "Evidence chain" })).toBeVisible();
  await expect(page.getByRole("region", { name: "What is missing" })).toContainText(
    "Nothing: every layer has its evidence",
  );
  await snap(page, "session");
});

test("a chain in a queue's state is in that queue from its first record, and is triaged from its own page", async ({
  page,
}) => {
  await signIn(page);
  await page.goto(`/chains/${encodeURIComponent(falseSuccess.chainId)}`);
  const bar = page.getByTestId("chain-status-bar");
  const place = bar.locator('[data-testid="chain-triage-item"][data-queue="false_success"]');
  await expect(place).toContainText("False success queue: open · nobody has acted on it yet");
  await place.getByRole("button", { name: "Acknowledge" }).click();
  await expect(place).toHaveAttribute("data-status", "acknowledged");
  await place.getByLabel("Note").fill("Looked from the chain page.");
  await place.getByRole("button", { name: "Resolve" }).click();
  await expect(place).toHaveAttribute("data-status", "resolved");
  await expect(place).toContainText("Reopen or add a note");
  // The queue agrees: the item is resolved, with the note in its trail.
  await page.goto(`/queues/false-success?status=all&chain=${encodeURIComponent(falseSuccess.chainId)}`);
  await expect(page.getByTestId("triage-status")).toContainText("resolved");
  await expect(page.getByTestId("triage-panel")).toContainText("Looked from the chain page.");

  // A healthy chain: in no queue, nothing to act on, and no warning colours for what its receipt made unneeded.
  await page.goto(`/chains/${encodeURIComponent(healthy.chainId)}`);
  await expect(page.getByTestId("chain-status-bar")).toContainText("In no triage queue");
  await expect(page.getByTestId("chain-status-bar").getByRole("button", { name: "Acknowledge" })).toHaveCount(
    0,
  );
  await expect(page.getByTestId("clock-scale").first()).toContainText("start");
  await snap(page, "chain-healthy-scale");

  // An effect-unknown chain's page carries the reconcile form beside the triage actions.
  await page.goto(`/chains/${encodeURIComponent(timeout.chainId)}`);
  const unknown = page.locator('[data-testid="chain-triage-item"][data-queue="effect_unknown"]');
  await expect(unknown.getByRole("button", { name: "Acknowledge" })).toBeVisible();
  await expect(unknown.getByRole("button", { name: "Record and re-classify" })).toBeVisible();
});
