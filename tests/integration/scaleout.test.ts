import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HealthRecord } from "@/lib/contract";
import type { TRoutingConfig } from "@/lib/routing/config";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { adminCookie } from "@/tests/support/dashboard-session";
import { FAST_ROUTING_ENV, HOOK_SECRET, routingApi, seedRecord } from "@/tests/support/routing-helpers";
import { chainProblems, ledgerProblems, settled } from "@/tests/support/scaleout-checks";
import { changingChains, expiringWrite, overlappingBatches } from "@/tests/support/scaleout-workload";
import { type ScriptedReceiver, startScriptedReceiver } from "@/tests/support/scripted-receiver";
import { createTestDatabase } from "@/tests/support/test-database";

// The app is stateless: three production servers on one PostgreSQL, every background worker on in each, share
// ingestion, deadlines and alert delivery with no work lost or done twice — and when one is killed with SIGKILL,
// the other two finish what it had leased.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let sql: pg.Client;
let receiver: ScriptedReceiver;
let apps: RunningApp[] = [];
let key: string;

const ENV = {
  ...FAST_ROUTING_ENV,
  RECEIPT_DEADLINE_TICK_MS: "100",
  RECEIPT_DELIVERY_PER_TARGET: "4",
  // Long enough that the first held sends do not time out before every instance holds its four, even when slow.
  RECEIPT_DELIVERY_TIMEOUT_MS: "4000",
  RECEIPT_DELIVERY_LEASE_MARGIN_MS: "500",
};
const HELD = 12; // three instances × RECEIPT_DELIVERY_PER_TARGET in flight each

// One group per alert (chain and state), so each change of an alert is exactly one notification.
function config(): TRoutingConfig {
  const hook = (path: string) => ({ type: "webhook" as const, url: receiver.url(path), secret: HOOK_SECRET });
  return {
    version: 1,
    channels: [
      { name: "main", ownerRole: "ops", targets: [hook("/hook/main")] },
      { name: "kill", ownerRole: "ops", targets: [hook("/hook/kill")] },
    ],
    route: {
      receiver: "main",
      groupBy: ["chain", "state"],
      groupWait: "0s",
      groupInterval: "1s",
      repeatInterval: "1h",
      routes: [{ matchers: ['label.suite="kill"'], receiver: "kill" }],
    },
    inhibitRules: [],
    silences: [],
  };
}

type Result = { recordId: string; duplicate: boolean };

/** Posts a batch; a batch whose instance died under it is sent again to the next one, as a collector retries. */
async function post(records: HealthRecord[], to: number): Promise<Result[]> {
  for (let attempt = 0; attempt < apps.length * 2; attempt++) {
    const app = apps[(to + attempt) % apps.length] as RunningApp;
    let response: Response;
    try {
      response = await apiClient(app.baseUrl, key).post(records);
    } catch {
      continue;
    }
    expect(response.status, await response.clone().text()).toBe(200);
    return ((await response.json()) as { results: Result[] }).results;
  }
  throw new Error("no instance took the batch");
}

const stillWorking = async (chainIds: string[]) =>
  (
    await sql.query<{ n: number }>(
      "select count(*)::int as n from chains where chain_id = any($1) and state = 'working'",
      [chainIds],
    )
  ).rows[0]?.n ?? -1;

/** Each chain left `working` by exactly one deadline row, and its effect_unknown alert fires. */
async function deadlineProblems(chainIds: string[]): Promise<string[]> {
  const { rows } = await sql.query<{
    chain_id: string;
    state: string;
    expiries: number;
    alert: string | null;
  }>(
    `select c.chain_id, c.state,
       (select count(*)::int from chain_state_changes h where h.chain_id = c.chain_id and h.cause = 'deadline')
         as expiries,
       (select string_agg(a.state || ':' || a.status, ',') from alerts a where a.chain_id = c.chain_id) as alert
     from chains c where c.chain_id = any($1)`,
    [chainIds],
  );
  const problems = rows
    .filter((r) => r.state !== "effect_unknown" || r.expiries !== 1 || r.alert !== "effect_unknown:firing")
    .map((r) => `${r.chain_id}: ${r.state}, ${r.expiries} expiries, alerts ${r.alert}`);
  return rows.length === chainIds.length
    ? problems
    : [...problems, `${rows.length} of ${chainIds.length} chains`];
}

beforeAll(async () => {
  db = await createTestDatabase();
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  receiver = await startScriptedReceiver();
  key = await createTestKey(db.url, "collectors");
  // One after another, each given longer than usual: three cold starts at once on a busy machine took longer.
  for (let i = 0; i < 3; i++) apps.push(await startApp(db.url, ENV, 90_000));
  const first = apps[0] as RunningApp;
  await routingApi(first.baseUrl, await adminCookie(first.baseUrl)).saveConfig(config());
}, 300_000);
afterAll(async () => {
  await Promise.all(apps.map((app) => app.stop()));
  await receiver?.stop();
  await sql?.end();
  await db?.drop();
});

describe("three app instances on one PostgreSQL", () => {
  it("overlapping and duplicate batches from six collectors to all three: every record stored once", async () => {
    const records = changingChains("so-ingest", 60, 4, "ingest");
    const queue = overlappingBatches(records, 20, 21);
    const firstSeen = new Map<string, number>();
    let next = 0;
    const collector = async (id: number) => {
      while (next < queue.length) {
        const n = next++;
        const batch = queue[n] as HealthRecord[];
        // Every third batch goes to two instances at the same moment, as a collector retrying too early would.
        const to = (n + id) % 3;
        const targets = n % 3 === 0 ? [to, (to + 1) % 3] : [to];
        const answers = await Promise.all(targets.map((to) => post(batch, to)));
        for (const result of answers.flat())
          if (!result.duplicate) firstSeen.set(result.recordId, (firstSeen.get(result.recordId) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: 6 }, (_, id) => collector(id)));
    expect([...firstSeen.values()].filter((n) => n !== 1)).toEqual([]);
    expect(firstSeen.size).toBe(records.length);
    expect(await chainProblems(sql, records)).toEqual([]);
  }, 120_000);

  it("deadlines expiring while all three workers run: one expiry and one alert per chain", async () => {
    const writes = Array.from({ length: 30 }, (_, i) => expiringWrite(`so-deadline-${i}`, 1500, "deadline"));
    await Promise.all(
      [0, 1, 2].map((to) =>
        post(
          writes.filter((_, i) => i % 3 === to),
          to,
        ),
      ),
    );
    const chainIds = writes.map((w) => w.chainId);
    expect(
      await settled(async () => ((await stillWorking(chainIds)) === 0 ? [] : ["working"]), 20_000),
    ).toEqual([]);
    expect(await settled(() => deadlineProblems(chainIds), 10_000)).toEqual([]);
  }, 120_000);

  it("alerts: every change reaches the receiver once, and deliveries agree with their attempts", async () => {
    const problems = await settled(() => ledgerProblems(sql, receiver.received(), "exact"), 30_000);
    expect(problems).toEqual([]);
    const { rows } = await sql.query<{ n: number }>("select count(*)::int as n from deliveries");
    expect(rows[0]?.n).toBeGreaterThan(60);
    const ids = new Set(receiver.received().map((r) => r.headers["receipt-delivery-id"]));
    expect(ids.size).toBe(rows[0]?.n);
  }, 120_000);

  it("one instance killed with SIGKILL mid-run: the other two finish its leased work", async () => {
    // The kill channel's receiver holds its first requests open: each instance has four sends in flight there.
    receiver.script("/hook/kill", ...Array.from({ length: HELD }, () => "hold" as const));
    const paged = Array.from({ length: HELD }, (_, i) =>
      seedRecord("tool_failed", `so-kill-${i}`, (r) => {
        r.labels = { suite: "kill" };
      }),
    );
    const writes = Array.from({ length: 30 }, (_, i) => expiringWrite(`so-late-${i}`, 2500, "late"));
    const records = changingChains("so-crash", 30, 3, "crash");
    await post(paged, 0);
    await Promise.all(
      [0, 1, 2].map((to) =>
        post(
          writes.filter((_, i) => i % 3 === to),
          to,
        ),
      ),
    );
    await receiver.waitFor(
      () => receiver.holding("/hook/kill") === HELD,
      20_000,
      "every instance's held sends",
    );

    let next = 0;
    const queue = overlappingBatches(records, 15, 42);
    const collector = async (id: number) => {
      while (next < queue.length) {
        const n = next++;
        await post(queue[n] as HealthRecord[], (n + id) % apps.length);
      }
    };
    const collecting = Promise.all(Array.from({ length: 4 }, (_, id) => collector(id)));
    const victim = apps[2] as RunningApp;
    const exited = new Promise((resolve) => victim.process.once("exit", resolve));
    victim.process.kill("SIGKILL");
    await exited;
    apps = apps.filter((app) => app !== victim);
    await collecting;

    expect(await chainProblems(sql, records)).toEqual([]);
    const late = writes.map((w) => w.chainId);
    expect(await settled(async () => ((await stillWorking(late)) === 0 ? [] : ["working"]), 20_000)).toEqual(
      [],
    );
    expect(await settled(() => deadlineProblems(late), 10_000)).toEqual([]);
    expect(await settled(() => ledgerProblems(sql, receiver.received(), "crashed"), 30_000)).toEqual([]);
    // The killed instance's four sends were claimed again once their leases ran out: an attempt without its log.
    const { rows } = await sql.query<{ lost: number; delivered: number }>(
      `select count(*) filter (where d.attempts - (select count(*) from delivery_attempts a
           where a.delivery_id = d.id) = 1)::int as lost,
         count(*) filter (where d.status = 'delivered')::int as delivered
       from deliveries d where d.channel = 'kill'`,
    );
    expect(rows[0]).toEqual({ lost: HELD / 3, delivered: HELD });
  }, 120_000);
});
