import { spawnSync } from "node:child_process";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HealthRecord } from "@/lib/contract";
import type { Coverage, QueueName } from "@/lib/dashboard/api-types";
import type { ProblemsPage } from "@/lib/problems/types";
import { problemKey } from "@/lib/problems/problem-key";
import { PROBLEM_WINDOW_SPEC } from "@/lib/problems/windows";
import { problemKeySql } from "@/lib/server/db/problem-ranking";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { laterSnapshot, rebased } from "@/tests/support/dashboard-records";
import { adminCookie, dashboardClient } from "@/tests/support/dashboard-session";
import { comparable, problemsFromChains } from "@/tests/support/problems-oracle";
import { catalogUnseen, handshakeUnseen, onlyCallSeen } from "@/tests/support/record-builders";
import { seedCases } from "@/tests/support/seed-cases";
import { createTestDatabase } from "@/tests/support/test-database";

// Coverage, problems and the queue counts read the rollups (whole days, whole hours) plus `chains` for a `since`
// inside an hour. Chains observed on and around an hour edge and a day edge, some moved to a later hour after they were counted, every seed state
// (shadowed ones included), deltas folded or not: each answer must equal a full count over `chains`.
const HOUR = 3_600_000;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let ui: ReturnType<typeof dashboardClient>;
let client: pg.Client;
const DAY = 24 * HOUR;
const edge = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
// Yesterday's start (UTC): whole days are read from the day rollup, the hours before them from the hour rollup.
const dayEdge = Math.floor(Date.now() / DAY) * DAY - DAY;
const offsets = [-1, 0, 1, 20 * 60_000, HOUR - 1, HOUR + 5 * 60_000];

beforeAll(async () => {
  db = await createTestDatabase();
  const key = await createTestKey(db.url, "agent", ["ingest", "read"]);
  app = await startApp(db.url, { RECEIPT_ROLLUP_FOLD_MS: String(HOUR) });
  ui = dashboardClient(app.baseUrl, await adminCookie(app.baseUrl));
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const records: HealthRecord[] = [
    ...seedCases().map((seed) => seed.record),
    ...unseenLayerRecords(),
  ].flatMap((record) =>
    [edge, dayEdge].flatMap((at, edgeIndex) =>
      offsets.map((offset, index) => rebased(record, at + offset, `edge${edgeIndex}-${index}`)),
    ),
  );
  const agent = apiClient(app.baseUrl, key);
  expect((await agent.post(records)).status).toBe(200);
  // Later snapshots move some chains out of the hour they were counted in (a −1 there, a +1 in the next).
  const moved = records.filter((_, index) => index % 4 === 0).map((r) => laterSnapshot(r, HOUR, "moved"));
  expect((await agent.post(moved)).status).toBe(200);
  const acknowledged = await client.query<{ chain_id: string }>(
    "select chain_id from chains where state = 'false_success' order by chain_id limit 2",
  );
  for (const [index, row] of acknowledged.rows.entries()) {
    const action = index === 0 ? "acknowledge" : "resolve";
    const response = await ui.post(`/api/v1/chains/${encodeURIComponent(row.chain_id)}/triage`, {
      action,
      queue: "false_success",
    });
    expect(response.status, action).toBe(200);
  }
  await workingChainsSettled();
});
afterAll(async () => {
  await client?.end();
  await app?.stop();
  await db?.drop();
});

/**
 * The seed's long-running task, rebased hours back, is past its deadline: the deadline job turns those chains into
 * effect_unknown a tick after they are written. A read racing that job would compare rollups read before the change
 * with chains read after it, so the tests start once no working chain is due within the next minute.
 */
async function workingChainsSettled(): Promise<void> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const { rows } = await client.query<{ due: number }>(
      "select count(*)::int as due from chains where state = 'working' and next_check_at <= now() + interval '60 seconds'",
    );
    if (rows[0]?.due === 0) return;
    if (Date.now() > deadline) throw new Error(`${rows[0]?.due} working chains still due after 90 s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Contract v1.2: chains whose reporter did not see a layer — a would-be healthy call (strong, and an LLM judge's) and
 * a failed one — so coverage's receipts and unseen-layer counts are checked against `chains` too.
 */
function unseenLayerRecords(): HealthRecord[] {
  const seeds = seedCases();
  const healthy = seeds.find((seed) => seed.expectedState === "healthy")?.record;
  const failed = seeds.find((seed) => seed.expectedState === "tool_failed")?.record;
  if (!healthy?.call || !failed) throw new Error("the seed cases have a healthy call and a tool failure");
  const variant = (record: HealthRecord, id: string, change: (r: HealthRecord) => void) => {
    const copy = structuredClone(record);
    copy.recordId = `${copy.recordId}:${id}`;
    copy.chainId = `${copy.chainId}:${id}`;
    change(copy);
    return copy;
  };
  return [
    variant(healthy, "unseen-handshake", handshakeUnseen),
    variant(healthy, "unseen-judge", (r) => {
      onlyCallSeen(r);
      if (r.call?.outcome) r.call.outcome.verifier = "llm_judge";
    }),
    variant(failed, "unseen-catalog", catalogUnseen),
  ];
}

/** Coverage as it was counted before the rollups: one pass over `chains`. */
async function coverageFromChains(since: Date | null) {
  const { rows } = await client.query(
    `select server_name as server, tool, count(*)::int as calls,
      count(*) filter (where state = 'healthy' or reasons[1] = 'outcome.verifier_failed'
        or reasons[1] in ('session.not_observed', 'catalog.not_observed'))::int as with_receipt,
      count(*) filter (where evidence = 'weak' or (reasons[1] in ('session.not_observed', 'catalog.not_observed')
        and 'outcome.weak_evidence' = any(reasons)))::int as weak,
      count(*) filter (where reasons && array['session.not_observed', 'catalog.not_observed'])::int as not_observed,
      count(*) filter (where 'session.not_observed' = any(reasons))::int as handshake_not_observed,
      count(*) filter (where 'catalog.not_observed' = any(reasons))::int as catalog_not_observed,
      count(*) filter (where reasons[1] = 'outcome.pending')::int as pending,
      count(*) filter (where reasons[1] = 'outcome.unavailable')::int as unavailable,
      count(*) filter (where reasons[1] = 'outcome.no_receipt')::int as no_verifier
    from chains where tool is not null and ($1::timestamptz is null or observed_at >= $1)
    group by 1, 2 order by count(*) desc, server_name, tool`,
    [since],
  );
  return rows.map((row) => ({
    server: row.server,
    tool: row.tool,
    calls: row.calls,
    withReceipt: row.with_receipt,
    weak: row.weak,
    pending: row.pending,
    unavailable: row.unavailable,
    noVerifier: row.no_verifier,
    notObserved: row.not_observed,
    handshakeNotObserved: row.handshake_not_observed,
    catalogNotObserved: row.catalog_not_observed,
  }));
}

const folds = ["unfolded", "folded"] as const;

describe.each(folds)("with the deltas %s", (fold) => {
  beforeAll(async () => {
    if (fold === "folded") {
      const folded = spawnSync(process.execPath, ["--import", "tsx", "scripts/rollups.ts", "fold"], {
        cwd: path.resolve(import.meta.dirname, "../.."),
        env: { ...process.env, DATABASE_URL: db.url },
        encoding: "utf8",
      });
      expect(folded.status, folded.stderr + folded.stdout.slice(0, 3000)).toBe(0);
      const left = await client.query("select count(*)::int as n from chain_rollup_deltas");
      expect(left.rows[0].n).toBe(0);
    } else {
      const pending = await client.query("select count(*)::int as n from chain_rollup_deltas");
      expect(pending.rows[0].n).toBeGreaterThan(0);
    }
  });

  it.each([
    ["all time", null],
    ["on an hour", edge],
    ["1 ms after an hour", edge + 1],
    ["1 ms before an hour", edge - 1],
    ["inside an hour", edge + 20 * 60_000 + 1],
    ["on a day", dayEdge],
    ["1 ms before a day", dayEdge - 1],
    ["an hour before a day", dayEdge - HOUR],
    ["inside the hour before a day", dayEdge - 20 * 60_000],
    ["inside a day's first hour", dayEdge + 20 * 60_000 + 1],
    ["two days back", dayEdge - DAY - 3 * HOUR - 7],
  ])("coverage %s equals a full count over chains", async (_, sinceMs) => {
    const since = sinceMs === null ? null : new Date(sinceMs);
    const query = since ? `?since=${since.toISOString()}` : "";
    const coverage = await ui.json<Coverage>(`/api/v1/coverage${query}`);
    const expected = await coverageFromChains(since);
    expect(expected.length).toBeGreaterThan(0);
    expect(coverage.rows.map(({ notReached: _, checks: __, ...row }) => row)).toEqual(expected);
  });

  it.each<QueueName>(["false_success", "effect_unknown"])(
    "queue counts of %s equal a full count",
    async (queue) => {
      const slug = queue.replace("_", "-");
      const page = await ui.json<{ counts: Record<string, number> }>(`/api/v1/queues/${slug}`);
      const { rows } = await client.query<{ status: "open" | "acknowledged" | "resolved"; n: number }>(
        `select status, sum(n)::int as n from (
        select coalesce(t.status, 'open') as status, count(*) as n
        from chains c left join triage_items t on t.chain_id = c.chain_id and t.queue = $1
        where c.state = $1 or c.shadowed_state = $1 group by 1
        union all
        select 'resolved', count(*) from triage_items t join chains c on c.chain_id = t.chain_id
        where t.queue = $1 and t.status = 'resolved' and c.state <> $1
          and c.shadowed_state is distinct from $1
      ) counted group by 1`,
        [queue],
      );
      const expected = { open: 0, acknowledged: 0, resolved: 0 };
      for (const row of rows) expected[row.status] = row.n;
      expect(page.counts).toEqual(expected);
      if (queue === "false_success") expect(expected.acknowledged + expected.resolved).toBe(2);
    },
  );

  it.each(["24h", "30d"])(
    "problems of %s count each tuple's chains and distinct sessions as the chains do",
    async (window) => {
      const page = await ui.json<ProblemsPage>(`/api/v1/problems?window=${window}&status=all&limit=200`);
      const { rows } = await client.query(
        `select server_name, tool, state, reasons[1] as reason, count(*)::int as n,
        count(distinct session_id)::int as sessions, min(observed_at) as first_seen,
        max(observed_at) as last_seen
      from chains where observed_at >= $1 and state not in ('healthy', 'working') group by 1, 2, 3, 4`,
        [page.since],
      );
      expect(page.problems.length).toBe(rows.length);
      for (const row of rows) {
        const problem = page.problems.find(
          (p) =>
            p.server === row.server_name &&
            p.tool === row.tool &&
            p.state === row.state &&
            p.reason === row.reason,
        );
        expect(problem, JSON.stringify(row)).toMatchObject({
          count: row.n,
          sessions: row.sessions,
          sessionsCapped: false,
          lastSeen: row.last_seen.toISOString(),
        });
        // First seen may come from a chain that has left its rollup row since: never later than the chains say.
        expect(Date.parse(problem?.firstSeen ?? "")).toBeLessThanOrEqual(row.first_seen.getTime());
      }
    },
  );

  // Ranked, filtered and cut in SQL: the same page as the in-memory assembly of every (tuple, bucket) row before.
  it.each(
    (["24h", "7d", "30d"] as const).flatMap((window) =>
      (["last_seen", "count"] as const).flatMap((sort) =>
        (["open", "resolved", "all"] as const).map((status) => ({ window, sort, status })),
      ),
    ),
  )("problems ranked in SQL as the in-memory assembly: $window $sort $status", async (options) => {
    await resolveSomeProblems();
    for (const [limit, text] of [[200], [3], [200, " Auth "], [2, "tool_"]] as const) {
      const query = `window=${options.window}&sort=${options.sort}&status=${options.status}&limit=${limit}`;
      const filter = text ? `&text=${encodeURIComponent(text)}` : "";
      const page = await ui.json<ProblemsPage>(`/api/v1/problems?${query}${filter}`);
      const expected = await problemsFromChains(
        client,
        { ...options, since: page.since, limit, text },
        PROBLEM_WINDOW_SPEC[options.window].bucketMs,
      );
      expect(page.problems.map(comparable), `${query} ${text}`).toEqual(expected.problems.map(comparable));
      expect(page.truncated, query).toBe(expected.truncated);
      if (limit === 200 && !text) expect(expected.problems.length, query).toBeGreaterThan(0);
    }
  });
});

describe("problem keys", () => {
  it("are made in SQL as lib/problems/problem-key.ts makes them, odd names too", async () => {
    const names = [
      "",
      "plain",
      'quote " and \\ slash',
      "tab\tnew\nline\u0001\u001f",
      "ünïcødé 🚀",
      "a,b",
      "null",
    ];
    const tuples = names.flatMap((name) => [
      { server: name || null, tool: "t", state: "tool_failed" as const, reason: name || null },
      { server: null, tool: name || null, state: "needs_auth" as const, reason: "r" },
    ]);
    const { rows } = await client.query(
      `select ${problemKeySql("t")} as key from unnest($1::text[], $2::text[], $3::text[], $4::text[])
        with ordinality as t(server_name, tool, state, reason, n) order by n`,
      [
        tuples.map((t) => t.server ?? ""),
        tuples.map((t) => t.tool ?? ""),
        tuples.map((t) => t.state),
        tuples.map((t) => t.reason ?? ""),
      ],
    );
    expect(rows.map((row) => row.key)).toEqual(tuples.map(problemKey));
  });
});

/** Some problems resolved long ago (so regressed), some resolved after their last write (so still resolved). */
async function resolveSomeProblems() {
  const { rows } = await client.query(
    `select distinct server_name, tool, state, reasons[1] as reason from chains
    where state not in ('healthy', 'working') order by 1, 2, 3, 4`,
  );
  for (const [index, row] of rows.entries()) {
    if (index % 3 === 2) continue;
    const tuple = { server: row.server_name, tool: row.tool, state: row.state, reason: row.reason };
    await client.query(
      `insert into problem_resolutions (key, server_name, tool, state, reason, resolved_at, resolved_by)
      values ($1, $2, $3, $4, $5, $6, 'test') on conflict (key) do nothing`,
      [
        problemKey(tuple),
        tuple.server,
        tuple.tool,
        tuple.state,
        tuple.reason,
        index % 3 === 0 ? new Date("2000-01-01") : new Date(Date.now() + DAY),
      ],
    );
  }
}
