import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect as baseExpect, test } from "@playwright/test";
import { liveCase } from "@/tests/support/dashboard-records";
import { ingest, signIn, snap } from "./support/dashboard";

// "Check destination now" on the chain page (issue 40 §3): a timed-out write whose destination shows it committed is
// reconciled by the check, and the page says what was read and that it settled the chain.
const expect = baseExpect.configure({ timeout: 15_000 });
const tag = `checks-${Date.now()}`;
// A tool of this run's own: the check matches nothing another spec ingests (they share the database).
const tool = `publish_${tag.replace(/-/g, "_")}`;
let destination: Server;
let base = "";

test.beforeAll(async () => {
  destination = createServer((req, res) => {
    if (req.url === `/posts/${encodeURIComponent(`op:${tag}`)}`)
      return res.writeHead(200).end('{"state":"live"}');
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => destination.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(destination.address() as AddressInfo).port}`;
});
test.afterAll(() => new Promise<void>((resolve) => destination.close(() => resolve())));

test("check destination now reconciles a timed-out write the destination shows committed", async ({
  page,
}) => {
  await signIn(page);
  const saved = await page.request.put(`/api/v1/checks/config?comment=${tag}`, {
    data: {
      version: 1,
      checks: [
        {
          name: "posts",
          match: { tool },
          http: { url: `${base}/posts/{operationKey}`, outcome: { pointer: "/state", equals: "live" } },
        },
      ],
    },
  });
  expect(saved.status(), await saved.text()).toBe(200);
  const record = liveCase(tag, "effect_unknown");
  if (!record.call) throw new Error("a seed case without a call");
  record.call.tool = tool;
  record.call.operationKey = `op:${tag}`;
  await ingest(page.request, [record]);

  await page.goto(`/chains/${encodeURIComponent(record.chainId)}`);
  const panel = page.getByRole("region", { name: "Destination checks" });
  await panel.getByRole("button", { name: "Check destination now" }).click();
  // The background job may have read it first: either way one run says the write is there and settled the chain.
  const run = panel.locator('[data-testid="check-run"][data-effect="committed"]').first();
  await expect(run).toContainText("posts: the write is there · outcome pass · HTTP 200");
  await expect(panel).toContainText("reconciled the chain");
  await expect(
    page.getByRole("region", { name: "Verdict" }).locator('[data-state="effect_unknown"]'),
  ).toHaveCount(0);
  await snap(page, "chain-destination-checked");
});
