import { expect, type Page, test } from "@playwright/test";
import type { HealthRecord } from "@/lib/contract";
import { liveCase, liveSeedCases, rebased, shadowedTimeout } from "@/tests/support/dashboard-records";
import { DESKTOP, ingest, PHONE, signIn, snap } from "./support/dashboard";

// Issue 41 §7 and §9: tables that keep words whole at 1280 px and turn into stacked cards at 390 px; the overview's
// change against the previous window; the session page's timeline of its calls.
const tag = `layout-${Date.now()}`;
const HOUR = 3_600_000;

/**
 * Text of labels, chips, buttons and column heads that runs over more than one line: each text node's line boxes,
 * grouped by their top (a word cut in two, or a two-word label wrapped, gives two).
 */
async function wrappedLabels(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const selector = [
      "main button",
      "main .button",
      "main thead th",
      'main [class*="badge"]',
      'main [class*="shadowWord"]',
      'main [class*="triage-"]',
      'main [class*="owner"]',
    ].join(", ");
    const wrapped: string[] = [];
    for (const element of document.querySelectorAll(selector)) {
      if (!element.checkVisibility()) continue;
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent?.trim();
        if (!text) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        const tops = new Set(
          [...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top)),
        );
        if (tops.size > 1) wrapped.push(`${element.tagName.toLowerCase()}: "${text}" on ${tops.size} lines`);
      }
    }
    return [...new Set(wrapped)];
  });
}

/** At 390 px: how far the page is wider than the viewport, and each visible data table row's look. */
async function phoneLayout(page: Page) {
  return page.evaluate(() => {
    const rows = [...document.querySelectorAll("main table.data-table tbody tr")].filter((row) =>
      row.checkVisibility(),
    );
    const first = rows[0];
    return {
      overflowPx: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      rows: rows.length,
      notCards: rows.filter((row) => getComputedStyle(row).display !== "block").length,
      // The first card's cell labels, as drawn (the ::before of each visible labelled cell).
      labels: first
        ? [...first.querySelectorAll("td[data-label]")]
            .filter((cell) => cell.checkVisibility())
            .map((cell) => getComputedStyle(cell, "::before").content.replace(/^"|"$/g, ""))
        : [],
      // Cells laid side by side instead of stacked: a cell whose top is above the previous cell's bottom.
      sideBySide: first
        ? [...first.children]
            .filter((cell) => cell.checkVisibility())
            .some((cell, index, cells) => {
              const previous = cells[index - 1];
              return previous
                ? cell.getBoundingClientRect().top < previous.getBoundingClientRect().bottom - 1
                : false;
            })
        : false,
    };
  });
}

async function expectCards(page: Page, path: string, labels: string[]) {
  await page.goto(path);
  await expect(page.locator("main table.data-table tbody tr").first()).toBeVisible();
  const layout = await phoneLayout(page);
  expect(layout.overflowPx, `${path} scrolls sideways`).toBeLessThanOrEqual(0);
  expect(layout.rows, path).toBeGreaterThan(0);
  expect(layout.notCards, `${path}: rows not shown as cards`).toBe(0);
  expect(layout.sideBySide, `${path}: cells side by side`).toBe(false);
  expect(layout.labels, path).toEqual(expect.arrayContaining(labels));
}

test("tables keep labels, chips and buttons whole at 1280 px and turn into stacked cards at 390 px", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const shadowed = shadowedTimeout(tag);
  const falseSuccess = liveCase(tag, "false_success");
  await signIn(page);
  await ingest(page.request, [shadowed, falseSuccess]);

  // The queue with its side panel open: the table is at its narrowest beside it.
  await page.setViewportSize(DESKTOP);
  await page.goto(`/queues/effect-unknown?chain=${encodeURIComponent(shadowed.chainId)}`);
  const row = page.locator(`tr[data-chain-id="${shadowed.chainId}"]`);
  await expect(row).toContainText("shadowed");
  await expect(row).toContainText("unassigned");
  const panel = page.getByRole("complementary", { name: "Triage" });
  await expect(panel.getByRole("button", { name: /^Assign/ })).toBeVisible();
  expect(await wrappedLabels(page)).toEqual([]);
  // The check sees a cut word: a button squeezed to 30 px breaks "Assign…" (then it goes again).
  await page.evaluate(() => {
    const probe = document.createElement("button");
    probe.id = "wrap-probe";
    probe.textContent = "Assign…";
    probe.setAttribute("style", "width: 30px; white-space: normal; overflow-wrap: anywhere");
    document.querySelector("main")?.append(probe);
  });
  expect(await wrappedLabels(page)).toEqual([expect.stringContaining('"Assign…"')]);
  await page.evaluate(() => document.getElementById("wrap-probe")?.remove());
  // Beside the panel the table fits its column: no sideways scroll, the Why column's words under the state.
  const scroller = page.locator("main .table-scroll").first();
  expect(await scroller.evaluate((element) => element.scrollWidth - element.clientWidth)).toBeLessThanOrEqual(
    0,
  );
  await expect(row.locator('td[data-label="Why"]')).toBeHidden();
  await expect(row.locator('td[data-label="State"]')).toContainText("Write not reconciled");
  await snap(page, "queue-effect-unknown-panel");

  await page.goto("/chains");
  await expect(page.locator("main table.data-table tbody tr").first()).toBeVisible();
  expect(await wrappedLabels(page)).toEqual([]);
  for (const path of ["/coverage", "/problems", "/settings/keys"]) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expect(page.getByRole("status").filter({ hasText: /^Loading/ })).toHaveCount(0);
    expect(await wrappedLabels(page), path).toEqual([]);
  }
  // The alert the false success raised (recorded even with no target), in its group opened first.
  const alerts = `/alerts?q=${encodeURIComponent(falseSuccess.chainId)}`;
  await page.goto(alerts);
  await expect(page.getByTestId("alert-row").getByRole("button", { name: "Silence…" })).toBeVisible();
  expect(await wrappedLabels(page)).toEqual([]);

  await page.setViewportSize(PHONE);
  await expectCards(page, "/chains", ["State", "Server · tool", "Observed"]);
  await page.screenshot({ path: "test-results/screens/chains-cards-390.png", fullPage: true });
  await expectCards(page, "/queues/effect-unknown", ["State", "Server · tool", "Triage", "Observed"]);
  await expectCards(page, alerts, ["Chain", "State", "Severity", "Delivery", "Assignee", "Actions"]);
  await expectCards(page, "/coverage", ["Calls", "With outcome receipt"]);
  await expectCards(page, "/settings/keys", ["Key", "Scopes", "Status"]);
  await expectCards(page, "/settings/users", ["Role", "Status"]);
  await expectCards(page, "/account", ["Last active"]);
  const operation = falseSuccess.call?.operationKey ?? "";
  await expectCards(page, `/operations/${encodeURIComponent(operation)}`, [
    "Chain",
    "State",
    "Effect",
    "Observed",
  ]);
  // The problems page is a list, not a table: it fits the phone as it is.
  await page.goto("/problems");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  expect((await phoneLayout(page)).overflowPx).toBeLessThanOrEqual(0);
  await page.setViewportSize(DESKTOP);
});

test("the overview shows each count's change against the previous window of the same length", async ({
  page,
}) => {
  await signIn(page, "/");
  const change = page.getByTestId("change-false_success");
  await expect(change).toBeVisible();
  const before = await deltaOf(change);
  const totalBefore = await deltaOf(page.getByTestId("total-change"));
  // Two false successes in this window, one in the previous one (30 h ago: before the 24 h window's start, after
  // the start of the window before it).
  const now = Date.now();
  const records: HealthRecord[] = [
    liveCase(`${tag}-now-a`, "false_success", now),
    liveCase(`${tag}-now-b`, "false_success", now),
    rebased(liveCase(`${tag}-before`, "false_success", now), now - 30 * HOUR, "before"),
  ];
  await ingest(page.request, records);
  await page.reload();
  await expect(change).toHaveText(/vs previous 24 h|same as previous 24 h/);
  await expect.poll(() => deltaOf(change)).toBe(before + 1);
  expect(await deltaOf(page.getByTestId("total-change"))).toBe(totalBefore + 1);
  // More chains in an alarming state than before is worse; the tile says so in its colour and its name.
  const delta = await deltaOf(change);
  await expect(change).toHaveAttribute(
    "data-meaning",
    delta > 0 ? "worse" : delta < 0 ? "better" : "neutral",
  );
  await expect(
    page.getByRole("link", { name: /^False success: \d+ chains.*vs previous 24 h/ }),
  ).toBeVisible();

  // The 1 h window compares with the hour before it.
  await page.getByRole("link", { name: "1h", exact: true }).click();
  await expect(page.getByTestId("change-false_success")).toHaveText(/(vs|same as) previous 1 h$/);
  await snap(page, "overview-compared");
});

/** "+12 vs previous 24 h" → 12, "−3 …" → -3, "same as …" → 0. */
async function deltaOf(locator: ReturnType<Page["getByTestId"]>): Promise<number> {
  const text = (await locator.textContent()) ?? "";
  if (text.startsWith("same")) return 0;
  const match = /^([+\u2212])([\d,]+) vs previous/.exec(text);
  if (!match) throw new Error(`not a change: ${text}`);
  return (match[1] === "+" ? 1 : -1) * Number(match[2]?.replace(/,/g, ""));
}

test("the session page lays its calls on a timeline from the session's start, each linked to its chain", async ({
  page,
}) => {
  const sessionId = `sess:${tag}-timeline`;
  const wanted = ["healthy", "false_success", "tool_failed", "working"];
  const records = liveSeedCases(`${tag}-timeline`)
    .filter((seed) => wanted.includes(seed.expectedState))
    .map((seed) => ({ ...seed.record, session: { ...seed.record.session, id: sessionId } }));
  expect(records).toHaveLength(wanted.length);
  await signIn(page);
  await ingest(page.request, records);
  await page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
  const timeline = page.getByTestId("session-timeline");
  await expect(timeline.getByRole("heading", { name: "Calls on a timeline" })).toBeVisible();
  const calls = timeline.getByTestId("timeline-call");
  const withCall = records.filter((record) => record.call);
  await expect(calls).toHaveCount(withCall.length);
  // Sorted by start; each bar in its chain's state, linked to the chain, with its duration.
  const starts = withCall
    .map((record) => ({ chainId: record.chainId, at: Date.parse(record.call?.startedAt ?? "") }))
    .sort((a, b) => a.at - b.at);
  for (const [index, { chainId }] of starts.entries()) {
    const call = calls.nth(index);
    await expect(call).toHaveAttribute("data-chain-id", chainId);
    const bar = call.getByRole("link");
    await expect(bar).toHaveAttribute("href", `/chains/${encodeURIComponent(chainId)}`);
    const state = records.find((record) => record.chainId === chainId);
    expect(state).toBeDefined();
    await expect(call.getByTestId("timeline-duration")).toHaveText(/\d/);
  }
  // The long-running task: its response only made the task, which still works, so its bar is not closed.
  const running = records.find(
    (record) => record.call && (!record.call.response || record.call.task?.status === "working"),
  );
  expect(running).toBeDefined();
  await expect(timeline.locator(`[data-chain-id="${running?.chainId}"] a`)).toHaveAttribute(
    "data-end",
    "open",
  );
  await expect(timeline.locator(`[data-chain-id="${running?.chainId}"]`)).toContainText("running for");
  const answered = withCall.find((record) => record.call?.response && !record.call.task);
  expect(answered).toBeDefined();
  if (answered?.call?.response) {
    const ms = Date.parse(answered.call.response.at) - Date.parse(answered.call.startedAt);
    const bar = timeline.locator(`[data-chain-id="${answered.chainId}"] a`);
    await expect(bar).toHaveAttribute("data-end", "response");
    await expect(bar).toHaveAttribute("aria-label", new RegExp(`, ${formatSeconds(ms)}`));
  }
  // The handshake and the catalog read, when the records have them.
  if (records.some((record) => record.session.protocol?.initializedAt))
    await expect(timeline.getByTestId("timeline-handshake")).toBeVisible();
  if (records.some((record) => record.catalog))
    await expect(timeline.getByTestId("timeline-catalog")).toBeVisible();
  // The bars lie inside the track and later calls start further right.
  const lefts = await calls
    .locator("a")
    .evaluateAll((bars) => bars.map((bar) => Number.parseFloat((bar as HTMLElement).style.left)));
  expect(lefts).toEqual([...lefts].sort((a, b) => a - b));
  expect(lefts.every((left) => left >= 0 && left <= 100)).toBe(true);
  await snap(page, "session-timeline");
  // On a phone the timeline fits the screen.
  await page.setViewportSize(PHONE);
  expect((await phoneLayout(page)).overflowPx).toBeLessThanOrEqual(0);
  await timeline.screenshot({ path: "test-results/screens/session-timeline-only-390.png" });
  await page.setViewportSize(DESKTOP);
  await calls.first().getByRole("link").click();
  await expect(page).toHaveURL(new RegExp(`/chains/${encodeURIComponent(starts[0]?.chainId ?? "")}$`));
});

/** The duration as formatDuration writes it for the seed's calls (under ten seconds: one decimal). */
function formatSeconds(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 9_950) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms / 1000)} s`;
}
