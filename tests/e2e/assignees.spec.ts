import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect as baseExpect, type Page, test } from "@playwright/test";
import { liveCase } from "@/tests/support/dashboard-records";
import { DESKTOP, ingest, PHONE, signIn, snap, untilHydrated } from "./support/dashboard";

// Assignees are users: pick one on a queue item (keyboard, in the combobox) and on the alerts page ("Assign to
// me"), filter "Assigned to me" (kept in the URL), and set one's own notification target with a test send.
const expect = baseExpect.configure({ timeout: 15_000 });
const tag = `assignees-${Date.now()}`;
const mine = liveCase(`${tag}-mine`, "false_success");
const other = liveCase(`${tag}-other`, "false_success");
const failing = liveCase(`${tag}-alert`, "tool_failed");
failing.labels = { ...failing.labels, run: tag };
let receiver: Server;
const received: string[] = [];
let hookUrl = "";

test.beforeAll(async ({ browser }) => {
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      received.push(body);
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/personal-hook`;
  const page = await browser.newPage();
  await signIn(page);
  await ingest(page.request, [mine, other, failing]);
  await page.close();
});
test.afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

/** Nothing may widen the page at 390 px. */
async function fitsPhone(page: Page) {
  await page.setViewportSize(PHONE);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  await page.setViewportSize(DESKTOP);
}

test("pick an assignee on a queue item with the keyboard, then filter the queue to 'Assigned to me'", async ({
  page,
}) => {
  await signIn(page, `/queues/false-success?status=all&chain=${encodeURIComponent(mine.chainId)}`);
  await untilHydrated(page);
  const panel = page.getByTestId("triage-panel");
  const picker = panel.getByRole("combobox", { name: "Assignee" });
  await picker.fill("adm");
  await expect(panel.getByRole("option", { name: /admin/ })).toBeVisible();
  await picker.press("ArrowDown");
  await picker.press("Enter");
  await expect(panel.getByTestId("triage-status")).toContainText("admin");
  await expect(panel.getByTestId("audit-trail")).toContainText("admin assigned to admin");
  await snap(page, "assignees-queue-picked");

  await page.getByRole("button", { name: "Assigned to me" }).click();
  await expect(page).toHaveURL(/assignee=me/);
  await expect(page.locator(`tr[data-chain-id="${mine.chainId}"]`)).toBeVisible();
  await expect(page.locator(`tr[data-chain-id="${other.chainId}"]`)).toHaveCount(0);
  await page.reload();
  await expect(page.getByRole("button", { name: /Assigned to me/ })).toHaveAttribute("aria-pressed", "true");
  await expect(page.locator(`tr[data-chain-id="${other.chainId}"]`)).toHaveCount(0);
  await snap(page, "assignees-queue-mine");
  await fitsPhone(page);
});

test("assign an alert to me on /alerts and filter the alerts to mine", async ({ page }) => {
  await signIn(page, `/alerts?q=${encodeURIComponent(tag)}`);
  const row = page.locator(`[data-testid="alert-row"][data-chain="${failing.chainId}"]`);
  await expect(row).toBeVisible();
  await row.getByRole("button", { name: "Assign…" }).click();
  await page.getByTestId("alert-assign-row").getByRole("button", { name: "Assign to me" }).click();
  await expect(row).toContainText("admin");
  await snap(page, "assignees-alert-assigned");
  await page.getByRole("button", { name: "Assigned to me" }).click();
  await expect(page).toHaveURL(/assignee=me/);
  await expect(row).toBeVisible();
  await fitsPhone(page);
});

test("set my own notification target, see it masked, and send a test", async ({ page }) => {
  await signIn(page, "/account/notifications");
  await expect(page).toHaveTitle(/My notifications/);
  await page.getByLabel("URL").fill("not a url at all");
  await page.getByLabel("URL").fill(hookUrl);
  await page.getByRole("button", { name: "Save" }).click();
  const current = page.getByTestId("current-target");
  await expect(current).toContainText("Webhook");
  await expect(current).toContainText("127.0.0.1");
  await expect(current).not.toContainText("personal-hook");
  await current.getByRole("button", { name: "Send test" }).click();
  await expect(page.getByTestId("test-sent")).toBeVisible();
  await expect.poll(() => received.some((body) => body.includes("receipt-test-notification"))).toBe(true);
  await snap(page, "assignees-notifications");
  await fitsPhone(page);
  await current.getByRole("button", { name: "Remove" }).click();
  await expect(page.getByTestId("no-target")).toBeVisible();
});
