import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HealthRecord } from "@/lib/contract";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { createTestDatabase } from "@/tests/support/test-database";
import { buildCall, runningWriteRecord } from "@/tests/support/record-builders";

// Waiting never stays green: a `working` chain with no newer record is re-classified at nextCheckAt + 1 ms by the
// server's own background job — with two app instances on one database, each transition happens exactly once.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let apps: RunningApp[] = [];
let key: string;

beforeAll(async () => {
  db = await createTestDatabase();
  key = await createTestKey(db.url, "agent", ["ingest", "read"]);
  const env = { RECEIPT_DEADLINE_TICK_MS: "100" };
  apps = await Promise.all([startApp(db.url, env), startApp(db.url, env)]);
});
afterAll(async () => {
  await Promise.all(apps.map((app) => app.stop()));
  await db?.drop();
});

/** An in-flight write started just now, with a deadline `deadlineMs` away. */
function runningWrite(id: string, deadlineMs: number, sideEffect: "write" | "none" = "write"): HealthRecord {
  return runningWriteRecord(deadlineMs, (call, r) => {
    r.recordId = `rec:${id}`;
    r.chainId = `chain:${id}`;
    call.sideEffect = sideEffect;
  });
}

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 100));
  }
}

type Detail = {
  chain: { state: string; reasons: string[]; nextCheckAt: string | null; evaluatedAt: string };
  history: { fromState: string | null; toState: string; cause: string; at: string }[];
};

describe("deadline re-classification", () => {
  it("a working write leaves `working` for effect_unknown once its deadline passes, once, at nextCheckAt + 1 ms", async () => {
    const client = apiClient(apps[0]?.baseUrl ?? "", key);
    const response = await client.post([runningWrite("deadline-write", 1500)]);
    const [result] = ((await response.json()) as { results: { state: string; nextCheckAt: string }[] })
      .results;
    expect(result?.state).toBe("working");
    const nextCheckAt = Date.parse(result?.nextCheckAt ?? "");
    const detail = await waitFor(async () => {
      const d = (await (await client.get("/api/v1/chains/chain:deadline-write")).json()) as Detail;
      return d.chain.state === "working" ? undefined : d;
    });
    expect(detail.chain.state).toBe("effect_unknown");
    expect(detail.chain.reasons.slice(0, 2)).toEqual(["effect.unreconciled", "request.deadline_exceeded"]);
    expect(detail.chain.nextCheckAt).toBeNull();
    expect(Date.parse(detail.chain.evaluatedAt)).toBe(nextCheckAt + 1);
    expect(detail.history.map((h) => [h.fromState, h.toState, h.cause])).toEqual([
      [null, "working", "record"],
      ["working", "effect_unknown", "deadline"],
    ]);
  });

  it("a read-only call past its deadline becomes tool_failed", async () => {
    const client = apiClient(apps[1]?.baseUrl ?? "", key);
    await client.post([runningWrite("deadline-read", 800, "none")]);
    const detail = await waitFor(async () => {
      const d = (await (await client.get("/api/v1/chains/chain:deadline-read")).json()) as Detail;
      return d.chain.state === "working" ? undefined : d;
    });
    expect(detail.chain.state).toBe("tool_failed");
    expect(detail.chain.reasons[0]).toBe("request.unfinished_read_only");
  });

  it("a newer record that arrives first wins: the deadline job does not touch a chain that moved on", async () => {
    const client = apiClient(apps[0]?.baseUrl ?? "", key);
    const waiting = runningWrite("moved-on", 1500);
    await client.post([waiting]);
    const finished = buildCall((call, r) => {
      r.recordId = "rec:moved-on-done";
      r.chainId = "chain:moved-on";
      r.observedAt = new Date(Date.now() + 10).toISOString();
      call.startedAt = waiting.call?.startedAt ?? call.startedAt;
      call.response = { at: new Date().toISOString(), kind: "result", isError: false };
      call.effect = { checkedAt: new Date().toISOString(), status: "committed" };
      call.outcome = { checkedAt: new Date().toISOString(), verifier: "db_row", verdict: "pass" };
    });
    finished.session = waiting.session;
    finished.catalog = waiting.catalog;
    await client.post([finished]);
    await new Promise((r) => setTimeout(r, 2500));
    const detail = (await (await client.get("/api/v1/chains/chain:moved-on")).json()) as Detail;
    expect(detail.chain.state).toBe("healthy");
    expect(detail.history.filter((h) => h.cause === "deadline")).toEqual([]);
  });

  it("with two instances racing, 40 due chains each transition exactly once", async () => {
    const records = Array.from({ length: 40 }, (_, i) => runningWrite(`race-${i}`, 600));
    await apiClient(apps[1]?.baseUrl ?? "", key).post(records);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await waitFor(async () => {
        const { rows } = await client.query(
          "select count(*)::int as n from chains where chain_id like 'chain:race-%' and state = 'working'",
        );
        return rows[0].n === 0 ? true : undefined;
      });
      const { rows } = await client.query(
        `select chain_id, count(*)::int as n from chain_state_changes
         where chain_id like 'chain:race-%' and cause = 'deadline' group by chain_id`,
      );
      expect(rows).toHaveLength(40);
      expect(rows.every((row) => row.n === 1)).toBe(true);
    } finally {
      await client.end();
    }
  });

  it("the same batch posted to both instances at once is stored once", async () => {
    const batch = Array.from({ length: 30 }, (_, i) => runningWrite(`both-${i}`, 60_000));
    const responses = await Promise.all(apps.map((app) => apiClient(app.baseUrl, key).post(batch)));
    const results = await Promise.all(
      responses.map(async (r) => ((await r.json()) as { results: { duplicate: boolean }[] }).results),
    );
    for (let i = 0; i < batch.length; i++) {
      expect(results.filter((list) => list[i]?.duplicate === false)).toHaveLength(1);
    }
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const { rows } = await client.query(
      "select count(*)::int as n from health_records where record_id like 'rec:both-%'",
    );
    await client.end();
    expect(rows[0].n).toBe(30);
  });
});
