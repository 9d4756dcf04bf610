import { expect as baseExpect, type Page, test } from "@playwright/test";
import { liveCase } from "@/tests/support/dashboard-records";
import type { TeamUser } from "@/tests/support/team-users";
import { ingest, signIn, snap, untilHydrated } from "./support/dashboard";
import { createE2eUser, e2eDatabaseUrl, signInAs } from "./support/team";
import pg from "pg";

// What each role sees: a viewer reads everything and every control that changes something is disabled or gone, with
// the reason; a responder works the queues and silences but not routing or keys; the server refuses either way.
// The machine is shared: page loads get more than the default five seconds.
const expect = baseExpect.configure({ timeout: 15_000 });
test.describe.configure({ timeout: 180_000 });
const tag = `access-${Date.now()}`;
const unknown = liveCase(tag, "effect_unknown");
let viewer: TeamUser;
let responder: TeamUser;

test.beforeAll(async ({ browser, baseURL }) => {
  [viewer, responder] = await Promise.all([
    createE2eUser(baseURL ?? "", "viewer"),
    createE2eUser(baseURL ?? "", "responder"),
  ]);
  const page = await browser.newPage();
  await signIn(page);
  await ingest(page.request, [unknown]);
  await page.close();
});

// The effect-unknown record fires alerts (the shipped routing sends that state to two channels).
const silenceButton = (page: Page) =>
  page
    .locator(`[data-testid="alert-row"][data-chain="${unknown.chainId}"]`)
    .getByRole("button", { name: "Silence…" });
const nav = (page: Page) => page.getByRole("navigation", { name: "Main" });

async function openQueueItem(page: Page) {
  await page.goto("/queues/effect-unknown");
  await untilHydrated(page);
  await page.locator(`tr[data-chain-id="${unknown.chainId}"]`).click();
  const panel = page.getByTestId("triage-panel");
  await expect(panel.getByRole("heading", { name: "Reconcile" })).toBeVisible();
  return panel;
}

test("a viewer reads every page; every control that changes something is disabled or gone, with the reason", async ({
  page,
}) => {
  await signInAs(page, viewer);
  await expect(page.getByTestId("signed-in-user")).toContainText(viewer.username);
  await expect(page.getByTestId("signed-in-role")).toHaveText(/Viewer/);
  await expect(nav(page).getByRole("link", { name: "Routing" })).toBeVisible();
  await expect(nav(page).getByRole("link", { name: "Settings" })).toHaveCount(0);

  const panel = await openQueueItem(page);
  await expect(panel.getByTestId("role-note")).toHaveText(
    "Responders and admins can triage and reconcile items.",
  );
  await expect(panel.getByRole("button", { name: "Acknowledge" })).toBeDisabled();
  await expect(panel.getByLabel("nothing: the write did not happen (absent)")).toBeDisabled();
  await snap(page, "access-viewer-queue");
  // The page is no guard: the API refuses the viewer's triage itself.
  const refused = await page.request.post(`/api/v1/chains/${unknown.chainId}/triage`, {
    data: { queue: "effect_unknown", action: "acknowledge" },
  });
  expect(refused.status()).toBe(403);
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("insufficient_role");

  await page.goto(`/chains/${unknown.chainId}`);
  await expect(page.getByRole("heading", { name: unknown.chainId })).toBeVisible();
  await snap(page, "access-viewer-chain");

  await page.goto(`/alerts?chain=${encodeURIComponent(unknown.chainId)}`);
  await expect(page.getByTestId("role-note")).toHaveText("Responders and admins can silence alerts.");
  await expect(silenceButton(page).first()).toBeDisabled();
  await snap(page, "access-viewer-alerts");

  await page.goto("/routing");
  const tree = page.locator("#tree");
  await expect(tree.getByTestId("role-note")).toHaveText("Only admins can change the routing config.");
  await expect(tree.getByRole("button", { name: "Add route" })).toBeDisabled();
  await expect(page.locator("#silences").getByTestId("role-note")).toHaveText(
    "Responders and admins can create and expire silences.",
  );
  await expect(page.getByRole("button", { name: "Add silence" })).toBeDisabled();
  // Reading stays open: the route test is a read.
  await expect(page.locator("#route-test").getByTestId("role-note")).toHaveCount(0);
  await snap(page, "access-viewer-routing");

  await page.goto("/settings/keys");
  await expect(page.getByTestId("role-note")).toHaveText(
    "Only admins can create, list and revoke ingestion keys.",
  );
  await expect(page.getByRole("button", { name: "Create key" })).toHaveCount(0);
  await snap(page, "access-viewer-keys");
});

test("a responder triages and silences, but neither routing nor keys", async ({ page }) => {
  await signInAs(page, responder);
  await expect(page.getByTestId("signed-in-role")).toHaveText(/Responder/);
  await expect(nav(page).getByRole("link", { name: "Settings" })).toHaveCount(0);

  const panel = await openQueueItem(page);
  await expect(panel.getByTestId("role-note")).toHaveCount(0);
  await panel.getByRole("button", { name: "Acknowledge" }).click();
  await expect(panel.getByTestId("triage-status")).toContainText(`acknowledged by ${responder.username}`);
  await snap(page, "access-responder-queue");

  await page.goto(`/alerts?chain=${encodeURIComponent(unknown.chainId)}`);
  await expect(silenceButton(page).first()).toBeEnabled();
  await expect(page.getByTestId("role-note")).toHaveCount(0);

  await page.goto("/routing");
  await expect(page.locator("#tree").getByTestId("role-note")).toHaveText(
    "Only admins can change the routing config.",
  );
  await expect(page.locator("#silences").getByTestId("role-note")).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Add silence" })).toBeEnabled();
  await snap(page, "access-responder-routing");

  await page.goto("/settings/keys");
  await expect(page.getByTestId("role-note")).toBeVisible();
  const keys = await page.request.get("/api/v1/keys");
  expect(keys.status()).toBe(403);
  await snap(page, "access-responder-keys");
});

test("a role change applies to the next page load, without signing in again", async ({ page, baseURL }) => {
  const user = await createE2eUser(baseURL ?? "", "viewer");
  await signInAs(page, user, "/routing");
  await expect(page.locator("#silences").getByTestId("role-note")).toBeVisible();
  const client = new pg.Client({ connectionString: await e2eDatabaseUrl(baseURL ?? "") });
  await client.connect();
  try {
    await client.query("update users set role = 'admin' where username = $1", [user.username]);
  } finally {
    await client.end();
  }
  await page.reload();
  await expect(page.getByTestId("signed-in-role")).toHaveText(/Admin/);
  await expect(page.getByTestId("role-note")).toHaveCount(0);
  await expect(nav(page).getByRole("link", { name: "Settings" })).toBeVisible();
});
