// Contract v1.2 through the real API: native records that say what their reporter did not see are stored with the
// classifier's state and reasons, and the chain list, stats, queues and coverage agree; a record whose `observed`
// breaks the schema or a cross-field rule is refused whole (422 with the issue's code and JSON path).
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { classify } from "@/lib/classifier";
import { type HealthRecord, STATE_SEVERITY_ORDER } from "@/lib/contract";
import type { ChainDetail, ChainPage, Coverage, QueuePage, Stats } from "@/lib/dashboard/api-types";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { expectError } from "@/tests/support/bad-input";
import { shiftTimes } from "@/tests/support/dashboard-records";
import {
  build,
  buildCall,
  catalogUnseen,
  handshakeUnseen,
  inFlightWrite,
  onlyCallSeen,
  t,
} from "@/tests/support/record-builders";
import { createTestDatabase } from "@/tests/support/test-database";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let key: string;

const api = () => apiClient(app.baseUrl, key);
const json = async <T>(path: string): Promise<T> => {
  const response = await api().get(path);
  expect(response.status, path).toBe(200);
  return (await response.json()) as T;
};

/** `record` as if observed a minute ago (inside every window), under its own ids and tool. */
function live(name: string, record: HealthRecord): HealthRecord {
  const moved = shiftTimes(record, Date.now() - 60_000 - Date.parse(record.observedAt));
  moved.recordId = `rec:v12-${name}`;
  moved.chainId = `chain:v12-${name}`;
  moved.session.id = `sess:v12-${name}`;
  if (moved.call) moved.call.tool = `v12_${name.replace(/-/g, "_")}`;
  return moved;
}

/** Each case: the record, and the state and reasons the classifier gives it (asserted below too). */
const CASES: Record<string, { record: HealthRecord; state: string; reasons: string[] }> = {
  "sampled-trace": {
    record: live("sampled-trace", build(handshakeUnseen)),
    state: "unverified",
    reasons: ["session.not_observed"],
  },
  "late-collector-tool-error": {
    record: live(
      "late-collector-tool-error",
      buildCall((call, r) => {
        catalogUnseen(r);
        call.response = { at: t(1_000), kind: "result", isError: true };
      }),
    ),
    state: "tool_failed",
    reasons: ["request.tool_error", "catalog.not_observed"],
  },
  "only-call-cancelled-write": {
    record: live(
      "only-call-cancelled-write",
      buildCall((call, r) => {
        onlyCallSeen(r);
        inFlightWrite(call);
        call.cancelledAt = t(2_000);
      }),
    ),
    state: "effect_unknown",
    reasons: ["effect.unreconciled", "session.not_observed", "catalog.not_observed", "request.cancelled"],
  },
  "only-call-verified": {
    record: live("only-call-verified", build(onlyCallSeen)),
    state: "unverified",
    reasons: ["session.not_observed", "catalog.not_observed"],
  },
  "only-call-llm-judge": {
    record: live(
      "only-call-llm-judge",
      buildCall((call, r) => {
        onlyCallSeen(r);
        if (call.outcome) call.outcome.verifier = "llm_judge";
      }),
    ),
    state: "unverified",
    reasons: ["session.not_observed", "catalog.not_observed", "outcome.weak_evidence"],
  },
  "late-collector-verifier-failed": {
    record: live(
      "late-collector-verifier-failed",
      buildCall((call, r) => {
        catalogUnseen(r);
        if (call.outcome) call.outcome.verdict = "fail";
      }),
    ),
    state: "false_success",
    reasons: ["outcome.verifier_failed", "catalog.not_observed"],
  },
  "all-seen": {
    record: live(
      "all-seen",
      build((r) => {
        r.observed = { handshake: true, catalog: null as unknown as boolean };
      }),
    ),
    state: "healthy",
    reasons: ["outcome.verified"],
  },
};

beforeAll(async () => {
  db = await createTestDatabase();
  key = await createTestKey(db.url, "v12", ["ingest", "read"]);
  app = await startApp(db.url);
  const response = await api().post(Object.values(CASES).map((c) => c.record));
  expect(response.status, await response.clone().text()).toBe(200);
});
afterAll(async () => {
  await app?.stop();
  await db?.drop();
});

describe("records with observed, stored", () => {
  it.each(Object.entries(CASES))("%s: stored state and reasons are the classifier's", async (_, c) => {
    expect(classify(c.record)).toMatchObject({ state: c.state, reasons: c.reasons });
    const detail = await json<ChainDetail>(`/api/v1/chains/${encodeURIComponent(c.record.chainId)}`);
    expect(detail.chain).toMatchObject({ state: c.state, reasons: c.reasons });
    // The record is stored as sent, `observed` included (null fields dropped, as everywhere).
    const stored = detail.records.find((entry) => entry.current)?.body;
    expect(stored?.observed).toEqual(
      c.record.observed?.handshake === true ? { handshake: true } : c.record.observed,
    );
  });

  it("a downgraded chain is decided in the unseen layer, with no evidence grade", async () => {
    const detail = await json<ChainDetail>(`/api/v1/chains/${CASES["only-call-verified"]?.record.chainId}`);
    expect(detail.chain).toMatchObject({
      layer: "session",
      evidence: null,
      shadowed: null,
      retrySafe: false,
    });
  });

  it("stats and queues count the chains by their stored state", async () => {
    const stats = await json<Stats>("/api/v1/stats");
    expect(stats.total).toBe(7);
    expect(stats.states).toMatchObject({
      unverified: 3,
      tool_failed: 1,
      effect_unknown: 1,
      false_success: 1,
      healthy: 1,
      incompatible_session: 0,
      stale_catalog: 0,
    });
    expect(stats.queues).toEqual({ falseSuccess: 1, effectUnknown: 1 });
    const inDoubt = await json<QueuePage>("/api/v1/queues/effect-unknown");
    expect(inDoubt.entries.map((entry) => entry.chain.chainId)).toEqual([
      CASES["only-call-cancelled-write"]?.record.chainId,
    ]);
    const falseSuccess = await json<QueuePage>("/api/v1/queues/false-success");
    expect(falseSuccess.entries.map((entry) => entry.chain.chainId)).toEqual([
      CASES["late-collector-verifier-failed"]?.record.chainId,
    ]);
  });

  it.each([
    [
      "session.not_observed",
      ["only-call-cancelled-write", "only-call-llm-judge", "only-call-verified", "sampled-trace"],
    ],
    [
      "catalog.not_observed",
      [
        "late-collector-tool-error",
        "late-collector-verifier-failed",
        "only-call-cancelled-write",
        "only-call-llm-judge",
        "only-call-verified",
      ],
    ],
  ])(
    "the chain list by reason %s finds it deciding or on the path, total included",
    async (reason, names) => {
      const expected = names.map((name) => `chain:v12-${name}`).sort();
      const page = await json<ChainPage>(`/api/v1/chains?reason=${reason}&limit=50`);
      expect(page.chains.map((chain) => chain.chainId).sort()).toEqual(expected);
      expect(page.total).toEqual({ count: expected.length, capped: false });
      const unverifiedOnly = await json<ChainPage>(
        `/api/v1/chains?reason=${reason}&state=unverified&limit=50`,
      );
      expect(unverifiedOnly.total.count).toBe(unverifiedOnly.chains.length);
      expect(unverifiedOnly.chains.every((chain) => chain.state === "unverified")).toBe(true);
      const byDanger = await json<ChainPage>(`/api/v1/chains?reason=${reason}&sort=danger&limit=50`);
      expect(byDanger.chains.map((chain) => chain.chainId).sort()).toEqual(expected);
      const ranks = byDanger.chains.map((chain) => STATE_SEVERITY_ORDER.indexOf(chain.state));
      expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    },
  );

  it("coverage counts the calls with unseen layers per server and tool", async () => {
    const coverage = await json<Coverage>("/api/v1/coverage");
    const row = (name: string) => coverage.rows.find((r) => r.tool === `v12_${name.replace(/-/g, "_")}`);
    // A would-be healthy call with an unseen layer had a passing receipt: it reached the outcome check.
    expect(row("sampled-trace")).toMatchObject({
      calls: 1,
      withReceipt: 1,
      weak: 0,
      notReached: 0,
      notObserved: 1,
      handshakeNotObserved: 1,
      catalogNotObserved: 0,
    });
    expect(row("only-call-llm-judge")).toMatchObject({
      withReceipt: 1,
      weak: 1,
      notReached: 0,
      notObserved: 1,
    });
    expect(row("only-call-cancelled-write")).toMatchObject({
      notObserved: 1,
      handshakeNotObserved: 1,
      catalogNotObserved: 1,
    });
    expect(row("late-collector-tool-error")).toMatchObject({ notObserved: 1, handshakeNotObserved: 0 });
    expect(row("all-seen")).toMatchObject({ calls: 1, notObserved: 0 });
    expect(coverage.totals).toMatchObject({ notObserved: 6, handshakeNotObserved: 4, catalogNotObserved: 5 });
    for (const r of coverage.rows) {
      expect(r.withReceipt + r.pending + r.unavailable + r.noVerifier + r.notReached).toBe(r.calls);
    }
    // A window after them: none.
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await json<Coverage>(`/api/v1/coverage?since=${future}`)).totals.notObserved).toBe(0);
  });
});

describe("the unseen-layers index (migration 20261205010000)", () => {
  // A few rows here: with sequential scans off the planner shows whether the queries' predicate matches the index's.
  async function planOf(sql: string): Promise<string> {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query("set enable_seqscan = off");
      const { rows } = await client.query(`explain (format json) ${sql}`);
      return JSON.stringify(rows[0]);
    } finally {
      await client.end();
    }
  }

  it("serves a chain list by a not-observed code in time order, and coverage's counts on the index alone", async () => {
    const list = await planOf(`select c.chain_id from chains c
      where c.reasons && array['session.not_observed', 'catalog.not_observed']::text[]
        and c.reasons @> array['catalog.not_observed']::text[]
      order by c.observed_at desc, c.chain_id desc limit 51`);
    expect(list).toContain("chains_unseen_layers_observed_at_idx");
    const counts = await planOf(`select server_name, tool, count(*) from chains
      where reasons && array['session.not_observed', 'catalog.not_observed']::text[] and tool is not null
        and observed_at >= now() - interval '7 days'
      group by server_name, tool`);
    expect(counts).toContain("chains_unseen_layers_observed_at_idx");
  });
});

describe("bad observed: refused whole, nothing stored", () => {
  // biome-ignore lint/suspicious/noExplicitAny: the rows reach into any field of a record, valid or not.
  type Mutable = Record<string, any>;
  const BAD: [string, (r: Mutable) => void, string, string][] = [
    [
      "observed.catalog false with a catalog",
      (r) => (r.observed = { catalog: false }),
      "$.observed.catalog",
      "catalog_not_observed_but_present",
    ],
    [
      "observed.handshake false with initializedAt",
      (r) => (r.observed = { handshake: false }),
      "$.observed.handshake",
      "handshake_not_observed_but_initialized",
    ],
    [
      "a non-boolean observed field",
      (r) => (r.observed = { handshake: "no" }),
      "$.observed.handshake",
      "invalid_type",
    ],
    [
      "a number as observed.catalog",
      (r) => (r.observed = { catalog: 0 }),
      "$.observed.catalog",
      "invalid_type",
    ],
    [
      "an unknown key inside observed",
      (r) => (r.observed = { handshake: true, call: false }),
      "$.observed.call",
      "unrecognized_keys",
    ],
    ["observed as a boolean", (r) => (r.observed = false), "$.observed", "invalid_type"],
  ];

  it.each(BAD)("%s → 422 at its path (JSON and NDJSON)", async (name, change, path, code) => {
    const before = (await json<Stats>("/api/v1/stats")).total;
    const good = live(`good-${name.replace(/[^a-z0-9]+/gi, "-")}`, build(handshakeUnseen));
    const bad = JSON.parse(
      JSON.stringify(
        live(
          `bad-${name.replace(/[^a-z0-9]+/gi, "-")}`,
          build(() => {}),
        ),
      ),
    );
    change(bad);
    await expectError(await api().post([good, bad]), 422, "invalid_records", path, code);
    const ndjson = `${JSON.stringify(good)}\n${JSON.stringify(bad)}\n`;
    const asNdjson = await api().postRaw(ndjson, "application/x-ndjson");
    const body = (await asNdjson.clone().json()) as { error: { issues: { index: number }[] } };
    await expectError(asNdjson, 422, "invalid_records", path, code);
    expect(body.error.issues.every((issue) => issue.index === 1)).toBe(true);
    expect((await json<Stats>("/api/v1/stats")).total).toBe(before);
    expect((await api().get(`/api/v1/chains/${encodeURIComponent(good.chainId)}`)).status).toBe(404);
  });
});
