import { expect, type Page, test } from "@playwright/test";
import type { HealthRecord } from "@/lib/contract";
import { liveCase } from "@/tests/support/dashboard-records";
import { DESKTOP, ingest, PHONE, signIn, snap } from "./support/dashboard";

// Long text an operator or an agent can really write: a 2,000-character note with no space to break at, label
// values of the contract's maximum, a long unbroken server name. None may widen a page past the viewport.
const tag = `long-${Date.now()}`;
const unbroken = (length: number, seed: string) =>
  seed.repeat(Math.ceil(length / seed.length)).slice(0, length);
const LONG_NOTE = unbroken(2000, "no-row-in-reports-table-for-operation-key-");
const LONG_LABEL = unbroken(256, "customer-tenant-identifier-");

function withLongText(record: HealthRecord): HealthRecord {
  const labels: Record<string, string> = { team: LONG_LABEL, agent: LONG_LABEL, env: LONG_LABEL };
  const server = record.session.server
    ? { ...record.session.server, name: unbroken(128, "reports-server-eu-west-") }
    : record.session.server;
  return { ...record, labels, session: { ...record.session, server } };
}

const effectUnknown = withLongText(liveCase(tag, "effect_unknown"));
const falseSuccess = withLongText(liveCase(tag, "false_success"));

/** Console errors and uncaught page errors: every page must load without one. */
function watchConsole(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`${page.url()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`${page.url()}: ${error.message}`));
  return problems;
}

/** How far the page is wider than the viewport, in CSS pixels (0 when it fits), and the elements that stick out. */
async function overflow(page: Page): Promise<{ px: number; culprits: string[] }> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const culprits = [...document.querySelectorAll("body *")]
      .filter((element) => {
        const box = element.getBoundingClientRect();
        if (box.right <= width + 1) return false;
        // Inside a scroller that clips it, it does not widen the page.
        for (let up = element.parentElement; up; up = up.parentElement) {
          if (["auto", "scroll", "hidden"].includes(getComputedStyle(up).overflowX)) {
            return up.getBoundingClientRect().right > width + 1 && up === element.parentElement;
          }
        }
        return true;
      })
      .slice(0, 5)
      .map(
        (element) =>
          `${element.tagName.toLowerCase()}.${element.className} (${element.textContent?.slice(0, 40)})`,
      );
    return { px: document.documentElement.scrollWidth - width, culprits };
  });
}

test.beforeAll(async ({ browser }) => {
  const page = await browser.newPage();
  await signIn(page);
  await ingest(page.request, [effectUnknown, falseSuccess]);
  for (const [record, queue] of [
    [effectUnknown, "effect_unknown"],
    [falseSuccess, "false_success"],
  ] as const) {
    const noted = await page.request.post(`/api/v1/chains/${encodeURIComponent(record.chainId)}/triage`, {
      data: { action: "note", queue, note: LONG_NOTE },
    });
    expect(noted.status(), await noted.text()).toBe(200);
  }
  await page.close();
});

const pages = () => [
  { name: "overview", path: "/" },
  { name: "chains", path: "/chains" },
  { name: "chain", path: `/chains/${encodeURIComponent(effectUnknown.chainId)}` },
  { name: "session", path: `/sessions/${encodeURIComponent(effectUnknown.session.id)}` },
  {
    name: "queue-effect-unknown",
    path: `/queues/effect-unknown?chain=${encodeURIComponent(effectUnknown.chainId)}`,
  },
  {
    name: "queue-false-success",
    path: `/queues/false-success?chain=${encodeURIComponent(falseSuccess.chainId)}`,
  },
  { name: "coverage", path: "/coverage" },
  { name: "alerts", path: "/alerts" },
  { name: "problems", path: "/problems" },
  { name: "search", path: `/search?q=${encodeURIComponent(effectUnknown.session.id)}` },
  { name: "routing", path: "/routing" },
  { name: "keys", path: "/settings/keys" },
];

for (const { name, path } of pages()) {
  test(`${name}: long text wraps at 1280 and 390 px and the console stays clean`, async ({ page }) => {
    const problems = watchConsole(page);
    await signIn(page);
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      await page.goto(path);
      await expect(page.getByRole("status").filter({ hasText: /^Loading/ })).toHaveCount(0, {
        timeout: 30_000,
      });
      await page.waitForLoadState("networkidle");
      const wide = await overflow(page);
      expect(wide.px, `${path} at ${viewport.width} px: ${wide.culprits.join("; ")}`).toBeLessThanOrEqual(0);
    }
    await snap(page, `long-text-${name}`);
    expect(problems).toEqual([]);
  });
}

test("the chain page shows the whole 2,000-character note, wrapped", async ({ page }) => {
  await signIn(page);
  await page.setViewportSize(PHONE);
  await page.goto(`/queues/effect-unknown?chain=${encodeURIComponent(effectUnknown.chainId)}`);
  const note = page.getByTestId("triage-panel").getByText(LONG_NOTE);
  await expect(note).toBeVisible({ timeout: 20_000 });
  const box = await note.boundingBox();
  expect(box?.width ?? Number.POSITIVE_INFINITY).toBeLessThanOrEqual(PHONE.width);
});

test("the effect-unknown queue's table fits 1280 px without scrolling sideways", async ({ page }) => {
  await signIn(page);
  await page.setViewportSize(DESKTOP);
  await page.goto("/queues/effect-unknown");
  const table = page.locator("table").first();
  await expect(table.locator(`tr[data-chain-id="${effectUnknown.chainId}"]`)).toBeVisible({
    timeout: 20_000,
  });
  const sideways = await table.evaluate((element) => {
    const scroller = element.parentElement as HTMLElement;
    return { table: element.scrollWidth, box: scroller.clientWidth };
  });
  expect(sideways.table).toBeLessThanOrEqual(sideways.box);
});
