import { randomUUID } from "node:crypto";
import { expect as baseExpect, type Page, test } from "@playwright/test";
import { PHONE, signIn, snap } from "./support/dashboard";

// The audit log page: two real actions (a key created, a silence edited) appear with who, what and the target; the
// filter bar writes the URL, a shared link shows the same events, a row's before → after highlights what changed.
const tag = randomUUID().slice(0, 8);
// The machine running the suite is shared: give each page a while to answer.
const expect = baseExpect.configure({ timeout: 20_000 });
test.describe.configure({ timeout: 180_000 });
const LONG_COMMENT = `night maintenance of the payments gateway ${"with-a-very-long-unbroken-token-".repeat(6)}${tag}`;

async function noHorizontalScroll(page: Page) {
  await page.setViewportSize(PHONE);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width).toBeLessThanOrEqual(PHONE.width);
}

test("actions appear in the audit log, filter by URL, expand to a before → after diff", async ({
  page,
  browser,
}) => {
  await signIn(page, "/");
  const keyName = `audit-e2e-${tag}`;
  expect(
    (await page.request.post("/api/v1/keys", { data: { name: keyName, scopes: ["read"] } })).status(),
  ).toBe(201);
  const silence = { matchers: [`server="audit-e2e-${tag}"`], duration: "2h", comment: "first window" };
  const created = await page.request.post("/api/v1/routing/silences", { data: silence });
  expect(created.status()).toBe(201);
  const silenceId = ((await created.json()) as { silence: { id: string } }).silence.id;
  const updated = await page.request.put(`/api/v1/routing/silences/${silenceId}`, {
    data: { ...silence, comment: LONG_COMMENT },
  });
  expect(updated.status()).toBe(200);

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Audit log" }).click();
  await expect(page).toHaveURL(/\/audit$/);
  await expect(page).toHaveTitle(/Audit log/);
  const events = page.getByTestId("audit-event");
  await expect(events.filter({ hasText: `key ${keyName}` })).toHaveCount(1);
  await expect(events.filter({ hasText: `key ${keyName}` })).toContainText("key.create");
  await snap(page, "audit");

  // Filter through the bar: the URL holds the filters.
  await page.getByLabel("Target id").fill(silenceId);
  await page.getByLabel("Target id").press("Enter");
  await expect(page).toHaveURL(new RegExp(`targetId=${silenceId}`));
  await expect(events).toHaveCount(2);
  await page.getByLabel("Action").selectOption("silence.update");
  await expect(page).toHaveURL(/action=silence\.update/);
  await expect(events).toHaveCount(1);
  const row = events.first();
  await expect(row).toContainText("admin");
  await expect(row.getByRole("link", { name: `silence ${silenceId}` })).toHaveAttribute(
    "href",
    "/routing#silences",
  );

  await row.getByRole("button", { name: "Changes" }).click();
  const diff = row.getByTestId("audit-diff");
  // A new comment, and a window counted again from now: the comment is among the changed fields, the matchers not.
  const changedComment = diff.locator('[data-changed="true"]').filter({ hasText: "comment" });
  await expect(changedComment).toHaveCount(1);
  await expect(changedComment).toContainText(LONG_COMMENT);
  await expect(changedComment).toContainText("first window");
  await expect(diff.locator('[data-changed="false"]').filter({ hasText: "matchers" })).toHaveCount(1);
  await snap(page, "audit-diff");
  await noHorizontalScroll(page);

  // The link, opened by someone else (a new tab of the same admin), shows the same single event.
  const shared = page.url();
  const other = await browser.newPage({ storageState: await page.context().storageState() });
  await other.goto(shared);
  await expect(other.getByTestId("audit-event")).toHaveCount(1);
  await expect(other.getByLabel("Action")).toHaveValue("silence.update");
  await other.close();
});

test("Load more continues after the last event shown", async ({ page }) => {
  await signIn(page);
  const matchers = [`server="audit-more-${tag}"`];
  for (let i = 0; i < 3; i++) {
    const answer = await page.request.post("/api/v1/routing/silences", {
      data: { matchers, duration: "1h", comment: `window ${i}` },
    });
    expect(answer.status()).toBe(201);
  }
  await page.goto("/audit?action=silence.create&limit=2");
  const events = page.getByTestId("audit-event");
  await expect(events).toHaveCount(2);
  const ids = async () => events.evaluateAll((rows) => rows.map((row) => row.getAttribute("data-event-id")));
  const shownFirst = await ids();
  await page.getByRole("button", { name: "Load more" }).click();
  await expect(events).toHaveCount(4);
  const all = await ids();
  expect(all.slice(0, 2)).toEqual(shownFirst);
  expect(new Set(all).size).toBe(4);
  expect(all.map(Number)).toEqual([...all.map(Number)].sort((a, b) => b - a));
  await noHorizontalScroll(page);
});
