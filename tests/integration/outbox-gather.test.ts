import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { seedRecord } from "@/tests/support/routing-helpers";
import { createTestDatabase } from "@/tests/support/test-database";

// With routing at commit, what a commit leaves in the outbox (here every alert: the shipped routes wait 30 s and have
// no target) waits for a groupWait anyway, so the routing job gathers this instance's commits into one run a window
// (RECEIPT_OUTBOX_GATHER_MS) instead of one a commit. The safety tick is far longer than the test.
const GATHER_MS = 1_500;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let ingest: ReturnType<typeof apiClient>;
let readKey: string;
let client: pg.Client;

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startApp(db.url, {
    RECEIPT_ALERT_TICK_MS: "60000",
    RECEIPT_OUTBOX_GATHER_MS: String(GATHER_MS),
  });
  ingest = apiClient(app.baseUrl, await createTestKey(db.url, "agent", ["ingest"]));
  readKey = await createTestKey(db.url, "scraper", ["read"]);
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  await app?.stop();
  await db?.drop();
});

async function routingRuns(): Promise<number> {
  const text = await (await apiClient(app.baseUrl, readKey).get("/metrics")).text();
  return Number(/^receipt_job_runs_total\{job="alert-routing"\} (\S+)$/m.exec(text)?.[1] ?? 0);
}

const membersOf = async (chainIds: string[]) =>
  (
    await client.query<{ n: number }>(
      `select count(*)::int as n from notification_group_members m join alerts a using (fingerprint)
        where a.chain_id = any($1::text[])`,
      [chainIds],
    )
  ).rows[0]?.n ?? 0;

describe("the routing job gathers this instance's commits", () => {
  it("five commits in a row are routed by one run when the window ends, not one run each", async () => {
    const runs = await routingRuns();
    const chainIds: string[] = [];
    const started = Date.now();
    for (let i = 0; i < 5; i++) {
      const record = seedRecord("tool_failed", `gather-${i}`);
      chainIds.push(record.chainId);
      expect((await ingest.post([record])).status).toBe(200);
    }
    const posted = Date.now() - started;
    // Within the window nothing was routed yet: the alerts are in the outbox, in no group.
    if (posted < GATHER_MS - 200) {
      expect(await membersOf(chainIds)).toBe(0);
      expect(await routingRuns()).toBe(runs);
    }
    const deadline = Date.now() + 10_000;
    while ((await membersOf(chainIds)) < 5 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await membersOf(chainIds)).toBe(5);
    // One run for the window (two when the posts outlasted it on a slow machine), never one a commit.
    expect((await routingRuns()) - runs).toBeLessThanOrEqual(posted < GATHER_MS ? 1 : 3);
    expect(
      (await client.query<{ n: number }>("select count(*)::int as n from alert_outbox")).rows[0]?.n,
    ).toBe(0);
  });
});
