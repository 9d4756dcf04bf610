import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { verifySignature } from "@/lib/routing/sign";
import { liveCase } from "@/tests/support/dashboard-records";
import { ingest, signIn, snap } from "./support/dashboard";

// Configure a route in the UI (a channel, a signed webhook target, a route), ingest a record, and watch the
// delivery land at a real receiver and in the page's delivery log.
const tag = `routing-${Date.now()}`;
const SECRET = "e2e-routing-secret-0123456789";
const received: { body: string; headers: Record<string, string> }[] = [];
let receiver: Server;
let hookUrl = "";

test.beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      received.push({ body, headers: req.headers as Record<string, string> });
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
test.afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

test("configure a route in the UI, ingest a record, see the delivery in the log", async ({ page }) => {
  test.setTimeout(90_000);
  await signIn(page, "/routing");
  await expect(page.getByRole("heading", { name: "Alert routing" })).toBeVisible();
  const channel = `e2e-${Date.now() % 100000}`;
  const channelBox = page.locator(`[data-testid="channel"][data-channel="${channel}"]`);

  await page.getByLabel("New channel name").fill(channel);
  await page.getByLabel("Owner role").fill("e2e team");
  await page.getByRole("button", { name: "Add channel" }).click();
  await expect(channelBox).toBeVisible();

  await page.getByLabel("Add a target to").selectOption(channel);
  await page.getByLabel("Target type").selectOption("webhook");
  await page.getByLabel("URL", { exact: true }).fill(hookUrl);
  await page.getByLabel("Signing secret (16+ characters)").fill(SECRET);
  await page.getByRole("button", { name: "Add target" }).click();
  await expect(channelBox).toContainText("signed JSON webhook");
  await expect(channelBox).not.toContainText(SECRET);

  await page.getByLabel("Route name").fill("e2e route");
  await page.getByLabel("Channel", { exact: true }).selectOption(channel);
  await page.getByLabel("Group wait (optional)").fill("0s");
  await page.getByLabel("Matchers, one per line").fill(`label.run="${tag}"`);
  await page.getByRole("button", { name: "Add route" }).click();
  await expect(page.locator('[data-route-name="e2e route"]')).toContainText(channel);

  const failing = liveCase(tag, "tool_failed");
  failing.labels = { ...failing.labels, run: tag };
  await ingest(page.request, [failing]);

  const row = page.locator(`[data-testid="delivery"][data-channel="${channel}"]`);
  await expect(row.first()).toHaveAttribute("data-status", "delivered", { timeout: 30_000 });
  await row.first().getByRole("button", { name: "Attempts" }).click();
  await expect(page.getByRole("table", { name: /Attempts of delivery/ })).toContainText("200");
  expect(received).toHaveLength(1);
  const [got] = received;
  expect(verifySignature(got?.body ?? "", got?.headers ?? {}, SECRET, Date.now())).toEqual({ ok: true });
  expect(got?.body).toContain(failing.chainId);

  await page
    .locator(`[data-channel="${channel}"]`)
    .getByRole("button", { name: "Send test notification" })
    .click();
  await expect(channelBox).toContainText("Queued 1 delivery");

  await page.getByLabel("a stored chain id").check();
  await page.getByRole("textbox", { name: "Chain id" }).fill(failing.chainId);
  await page.getByRole("button", { name: "Test routing" }).click();
  await expect(page.getByTestId("route-test-result")).toContainText(`It would notify ${channel}`);

  await expect(row).toHaveCount(2, { timeout: 30_000 });
  await snap(page, "routing");
});

test("a refused target or channel says what is wrong next to the field, in words, not as a JSON path", async ({
  page,
}) => {
  await signIn(page, "/routing");
  await expect(page.getByRole("heading", { name: "Alert routing" })).toBeVisible();
  const form = page.getByRole("form", { name: "Add a target" });
  await page.getByLabel("Add a target to").selectOption("tool-owner");
  await page.getByLabel("Target type").selectOption("webhook");
  await page.getByLabel("URL", { exact: true }).fill(`https://${"a".repeat(300)}.example/hook`);
  await page.getByLabel("Signing secret (16+ characters)").fill("short");
  await page.getByRole("button", { name: "Add target" }).click();
  await expect(form.locator("#target-url-error")).toHaveText(
    "a host name of at most 253 characters, each label at most 63, none empty",
  );
  await expect(form.locator("#target-secret-error")).not.toBeEmpty();
  await expect(page.getByText("$.channels")).toHaveCount(0);
  await snap(page, "routing-target-field-errors");

  // An empty channel name is said at its field, not by a button that silently does nothing.
  const channelForm = page.getByRole("form", { name: "Add a channel" });
  await channelForm.getByRole("button", { name: "Add channel" }).click();
  await expect(channelForm.locator("#channel-name-error")).toHaveText("Give the channel a name.");
  await expect(channelForm.locator("#channel-owner-error")).toHaveText(
    "Say which team or role owns the fix.",
  );
});
