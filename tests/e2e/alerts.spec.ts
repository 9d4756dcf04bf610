import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect as baseExpect, type Page, test } from "@playwright/test";
import type { HealthRecord } from "@/lib/contract";
import type { RoutingConfigAnswer } from "@/lib/dashboard/routing-api-types";
import { liveCase } from "@/tests/support/dashboard-records";
import { DESKTOP, ingest, PHONE, signIn, snap } from "./support/dashboard";

// The on-call workspace: records in → an alert fires → /alerts shows it with its delivery → "Silence…" from it with a
// preview (the protected-state rule included) → it shows silenced; the chain page's header shows triage and alerts;
// the delivery log links the chain.
// The machine is shared: page loads get more than the default five seconds.
const expect = baseExpect.configure({ timeout: 15_000 });
const tag = `alerts-${Date.now()}`;
const server = `srv-${tag}`;
let receiver: Server;
let hookUrl = "";

test.beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200).end("ok"));
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
test.afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

/** A route of its own, first in the tree, for this run's records only (other specs share the database). */
async function routeThisRun(page: Page, channel: string) {
  const current = (await (await page.request.get("/api/v1/routing/config")).json()) as RoutingConfigAnswer;
  const config = structuredClone(current.config);
  config.channels.push({
    name: channel,
    ownerRole: "on-call",
    targets: [{ type: "webhook", url: hookUrl, secret: "e2e-alerts-secret-0123456789" }],
  });
  config.route.routes = [
    {
      name: `alerts e2e ${tag}`,
      matchers: [`label.run="${tag}"`],
      receiver: channel,
      groupBy: ["server"],
      groupWait: "0s",
    },
    ...(config.route.routes ?? []),
  ];
  const saved = await page.request.put(`/api/v1/routing/config?comment=${tag}`, {
    data: config,
    headers: { "if-match": `"${current.version}"` },
  });
  expect(saved.status(), await saved.text()).toBe(200);
}

/** Nothing may widen the page at 390 px; on failure, the widest offenders are named. */
async function fitsPhone(page: Page) {
  await page.setViewportSize(PHONE);
  const overflow = await page.evaluate(() => ({
    width: document.documentElement.scrollWidth,
    // Elements sticking out that no scrolling or clipping ancestor holds in.
    offenders: [...document.querySelectorAll("body *")]
      .filter((e) => {
        if (e.getBoundingClientRect().right <= window.innerWidth + 1) return false;
        for (let up = e.parentElement; up && up !== document.body; up = up.parentElement)
          if (getComputedStyle(up).overflowX !== "visible") return false;
        return true;
      })
      .slice(0, 5)
      .map((e) => `${e.tagName.toLowerCase()}.${String(e.className)}:${e.textContent?.slice(0, 40)}`),
  }));
  expect(overflow.width, overflow.offenders.join(" | ")).toBeLessThanOrEqual(PHONE.width);
  await page.setViewportSize(DESKTOP);
}

function record(state: string, suffix: string): HealthRecord {
  const r = liveCase(`${tag}-${suffix}`, state);
  r.labels = { ...r.labels, run: tag };
  if (r.session.server) r.session.server.name = server;
  return r;
}

test("an alert fires, is silenced from /alerts with a preview, and shows on its chain page", async ({
  page,
}) => {
  test.setTimeout(300_000);
  await signIn(page, "/alerts");
  await expect(page.getByRole("link", { name: "Alerts" })).toHaveAttribute("aria-current", "page");
  const channel = `alerts-${Date.now() % 100000}`;
  await routeThisRun(page, channel);
  const first = record("tool_failed", "a");
  const second = record("tool_failed", "b");
  const risky = record("effect_unknown", "c");
  await ingest(page.request, [first, second, risky]);
  const team = (await (await page.request.get("/api/v1/users")).json()) as {
    users: { id: string; username: string }[];
  };
  const admin = team.users.find((user) => user.username === "admin");
  const triage = await page.request.post(`/api/v1/chains/${encodeURIComponent(risky.chainId)}/triage`, {
    data: { action: "assign", queue: "effect_unknown", assigneeId: admin?.id },
  });
  expect(triage.status(), await triage.text()).toBe(200);

  await page.goto(`/alerts?q=${encodeURIComponent(tag)}`);
  await expect(page).toHaveTitle(/Alerts/);
  const group = page.locator(`[data-testid="alert-group"][data-receiver="${channel}"]`);
  const rowOf = (chainId: string) => group.locator(`[data-testid="alert-row"][data-chain="${chainId}"]`);
  await expect(rowOf(first.chainId)).toHaveAttribute("data-delivery", "delivered", { timeout: 20_000 });
  await expect(group.getByTestId("alert-row")).toHaveCount(3);
  await expect(group).toContainText(`alerts e2e ${tag}`);
  await expect(group).toContainText(`server=${server}`);
  await snap(page, "alerts");
  await fitsPhone(page);

  // The filter lives in the URL: a reload keeps it.
  await page.getByLabel("State").selectOption("effect_unknown");
  await expect(page).toHaveURL(/state=effect_unknown/);
  await expect(group.getByTestId("alert-row")).toHaveCount(1);
  await page.reload();
  await expect(group.getByTestId("alert-row")).toHaveCount(1);
  await page.getByLabel("State").selectOption("");
  await expect(group.getByTestId("alert-row")).toHaveCount(3);

  await rowOf(first.chainId).getByRole("button", { name: "Silence…" }).click();
  const dialog = page.getByRole("dialog", { name: "Silence alerts like this one" });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId("preview-summary")).toContainText(
    "Mutes this alert and 1 other firing alert",
  );
  await expect(dialog.getByTestId("preview-muted")).toContainText(second.chainId);
  // Without the state matcher it matches the effect_unknown alert too, which only a silence naming it can mute.
  await dialog.getByRole("checkbox", { name: 'state="tool_failed"' }).uncheck();
  await expect(dialog.getByTestId("preview-kept")).toContainText(risky.chainId);
  await expect(dialog.getByTestId("preview-protected")).toContainText("Still loud: 1");
  await dialog.getByLabel("Why (required)").fill(`e2e ${tag}`);
  await snap(page, "alerts-silence-dialog");
  await dialog.getByRole("button", { name: "Create silence" }).click();
  await expect(dialog).toBeHidden();
  // Silenced alerts reach nobody: they leave the list, counted behind a toggle, and come back when asked for.
  await expect(rowOf(first.chainId)).toHaveCount(0);
  await expect(group.getByTestId("alert-group-muted")).toContainText(
    "2 silenced or inhibited alerts hidden here",
  );
  await expect(rowOf(risky.chainId)).toBeVisible();
  await page.getByTestId("show-muted").click();
  await expect(page).toHaveURL(/muted=1/);
  await expect(rowOf(first.chainId)).toHaveAttribute("data-delivery", "silenced");
  await expect(rowOf(second.chainId)).toHaveAttribute("data-delivery", "silenced");
  await expect(rowOf(risky.chainId)).not.toHaveAttribute("data-delivery", "silenced");
  // Loud before muted inside a group: the unsilenced alert is the group's first row.
  await expect(group.getByTestId("alert-row").first()).toHaveAttribute("data-chain", risky.chainId);

  // The silences page (issue 41 §9): each silence with what it hides now, linked to the muted alerts.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Silences" }).click();
  await expect(page).toHaveTitle(/Silences/);
  const silence = page.getByTestId("silence").filter({ hasText: `e2e ${tag}` });
  await expect(silence.locator('[data-column="mutes"]')).toHaveText("2 firing alerts");
  await expect(silence.locator('[data-column="mutes"] a')).toHaveAttribute("href", "/alerts?muted=1");
  await snap(page, "silences");
  await fitsPhone(page);

  // The chain page's header: triage status and its alerts, linking back to /alerts.
  await page.goto(`/chains/${encodeURIComponent(risky.chainId)}`);
  const bar = page.getByTestId("chain-status-bar");
  await expect(bar.getByTestId("chain-triage-item")).toContainText("admin", {
    timeout: 15_000,
  });
  await expect(bar.getByTestId("chain-alert")).toContainText("Effect unknown");
  await expect(bar.getByTestId("chain-alert")).toContainText(channel);
  await snap(page, "alerts-chain-header");
  await fitsPhone(page);
  await bar.getByRole("link", { name: "This chain on the alerts page →" }).click();
  await expect(page).toHaveURL(/\/alerts\?chain=/);
  await expect(page.getByTestId("alert-row")).toHaveCount(1);

  // The delivery log, filtered to the first chain from the URL: the chain is a link, the route named.
  await page.goto(`/routing?deliveries_chain=${encodeURIComponent(first.chainId)}#deliveries`);
  const log = page.getByTestId("delivery-log");
  await expect(log.getByTestId("delivery-chain").first()).toBeVisible({ timeout: 15_000 });
  await expect(log.locator(`a[href="/chains/${encodeURIComponent(first.chainId)}"]`).first()).toBeVisible();
  await expect(log).toContainText(`alerts e2e ${tag}`);
  await snap(page, "alerts-delivery-log");
  await fitsPhone(page);
  await log
    .locator(`a[href="/chains/${encodeURIComponent(first.chainId)}"]`)
    .first()
    .click();
  await expect(page).toHaveURL(new RegExp(`/chains/${encodeURIComponent(first.chainId)}$`));
});

test("unfiltered, the worst group comes first and opens; the others are one summary line each, opened from the URL", async ({
  page,
}) => {
  await signIn(page, "/alerts");
  // Four servers' false successes: four groups at least (the routing groups by server and state).
  const failures = ["a", "b", "c", "d"].map((name) => {
    const record = liveCase(`${tag}-rank-${name}`, "false_success");
    if (record.session.server) record.session.server.name = `rank-${name}-${tag}`;
    return record;
  });
  await ingest(page.request, failures);
  const groups = page.getByTestId("alert-group");
  await expect(async () => {
    await page.reload();
    // Counted once the list has loaded (its head line), not while the skeleton shows.
    await expect(page.getByText(/the worst first/)).toBeVisible({ timeout: 10_000 });
    expect(await groups.count()).toBeGreaterThan(3);
  }).toPass({ timeout: 45_000 });
  const count = await groups.count();
  const SEVERITY_ORDER = ["critical", "high", "warning", "low"];
  const summaryOf = async (index: number) => {
    const text = (
      (await groups.nth(index).getByTestId("alert-group-summary").textContent()) ?? ""
    ).toLowerCase();
    return {
      severity: SEVERITY_ORDER.findIndex((severity) => text.startsWith(severity)),
      loud: Number(/(\d+) loud/.exec(text)?.[1] ?? "0"),
    };
  };
  // Ranked: every group that still reaches someone before every muted one, and among those the worst first.
  const summaries = [];
  for (let index = 0; index < count; index++) summaries.push(await summaryOf(index));
  const loud = summaries.filter((summary) => summary.loud > 0);
  expect(summaries.slice(0, loud.length).every((summary) => summary.loud > 0)).toBe(true);
  for (let index = 1; index < loud.length; index++)
    expect(loud[index]?.severity).toBeGreaterThanOrEqual(loud[index - 1]?.severity ?? 0);
  await expect(groups.nth(0)).toHaveAttribute("data-open", "true");
  await expect(groups.nth(1)).toHaveAttribute("data-open", "false");
  await expect(groups.nth(1).getByTestId("alert-row")).toHaveCount(0);
  await groups.nth(1).getByRole("button", { expanded: false }).click();
  await expect(groups.nth(1)).toHaveAttribute("data-open", "true");
  await expect(page).toHaveURL(/open=/);
  await page.reload();
  await expect(groups.nth(1)).toHaveAttribute("data-open", "true");
  await expect(groups.nth(0)).toHaveAttribute("data-open", "true");
  await snap(page, "alerts-ranked");
});
