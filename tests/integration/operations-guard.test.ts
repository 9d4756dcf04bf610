import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HealthRecord } from "@/lib/contract/record";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { liveCase } from "@/tests/support/dashboard-records";
import { adminCookie, dashboardClient } from "@/tests/support/dashboard-session";
import { createTestDatabase } from "@/tests/support/test-database";

// The retry guard over real HTTP against PostgreSQL: an operation's status derived from its chains and lease,
// the four decisions, reconciliation changing the answer, bad input refused with nothing stored, and racing callers.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let ui: ReturnType<typeof dashboardClient>;
let agent: ReturnType<typeof apiClient>;
let agentKey: string;
let readerKey: string;
let sql: pg.Client;

const opPath = (key: string) => `/api/v1/operations/${encodeURIComponent(key)}`;
const guard = (key: string, body: unknown, token = agentKey) =>
  fetch(`${app.baseUrl}${opPath(key)}/attempts`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
const read = async (key: string) => {
  const response = await agent.get(opPath(key));
  expect(response.status).toBe(200);
  return response.json();
};
async function ingest(...records: unknown[]) {
  const response = await agent.post(records);
  expect(response.status, await response.clone().text()).toBe(200);
}
/** A seed record of `state`, carrying the operation key, as a chain of its own. */
function attemptRecord(state: string, key: string, tag: string): HealthRecord {
  const record = structuredClone(liveCase(tag, state));
  record.chainId = `${record.chainId}:${tag}`;
  record.recordId = `${record.recordId}:${tag}`;
  if (!record.call) throw new Error("a seed case without a call");
  record.call.operationKey = key;
  return record;
}
const toolOf = (record: HealthRecord) => record.call?.tool as string;
const decisionsOf = async (key: string) =>
  (
    await sql.query("select decision from operation_decisions where operation_key = $1 order by id", [key])
  ).rows.map((row) => row.decision);

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startApp(db.url);
  agentKey = await createTestKey(db.url, "agent", ["ingest", "read"]);
  readerKey = await createTestKey(db.url, "reader", ["read"]);
  agent = apiClient(app.baseUrl, agentKey);
  ui = dashboardClient(app.baseUrl, await adminCookie(app.baseUrl));
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
});
afterAll(async () => {
  await sql?.end();
  await app?.stop();
  await db?.drop();
});

describe("one operation from first ask to committed", () => {
  const key = "op:report-42";
  const timeout = attemptRecord("effect_unknown", key, "flow");
  const tool = toolOf(timeout);

  it("never seen: GET says none; the first ask proceeds (201) with a lease", async () => {
    expect(await read(key)).toMatchObject({ operationKey: key, status: "none", attempts: [], lease: null });
    const response = await guard(key, { tool, holder: "agent-a", leaseMs: 60_000 });
    expect(response.status).toBe(201);
    const body = await response.json();
    expect(body).toMatchObject({
      decision: "proceed",
      status: "none",
      lease: { holder: "agent-a", state: "live" },
    });
    expect(Date.parse(body.lease.leaseUntil) - Date.parse(body.lease.grantedAt)).toBe(60_000);
  });

  it("a second asker while the lease is live must wait: 409 operation_in_progress with Retry-After", async () => {
    const response = await guard(key, { tool, holder: "agent-b", leaseMs: 60_000 });
    expect(response.status).toBe(409);
    const retryAfter = Number(response.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await response.json()).toMatchObject({
      decision: "wait",
      status: "in_flight",
      error: { code: "operation_in_progress" },
      lease: { holder: "agent-a" },
    });
  });

  it("the same key for another tool or server is refused (409 operation_key_conflict) and not stored", async () => {
    const before = await decisionsOf(key);
    const otherTool = await guard(key, { tool: "delete_everything", holder: "agent-b", leaseMs: 1000 });
    expect(otherTool.status).toBe(409);
    expect(await otherTool.json()).toMatchObject({
      error: { code: "operation_key_conflict", issues: [{ path: "$.tool" }] },
    });
    await ingest(timeout); // the record binds the key to its server too
    const otherServer = await guard(key, { tool, server: "not-this-server", holder: "b", leaseMs: 1000 });
    expect(otherServer.status).toBe(409);
    expect(await otherServer.json()).toMatchObject({
      error: { code: "operation_key_conflict", issues: [{ path: "$.server" }] },
    });
    expect(await decisionsOf(key)).toEqual(before);
  });

  it("the timed-out write consumed the lease: in doubt, reconcile_first names the attempt and the page", async () => {
    const response = await guard(key, { tool, holder: "agent-b", leaseMs: 60_000 });
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({
      decision: "reconcile_first",
      status: "in_doubt",
      error: { code: "operation_in_doubt" },
      attempts: [{ chainId: timeout.chainId, state: "effect_unknown", effect: "unknown" }],
      lease: { holder: "agent-a", state: "consumed" },
      links: { page: `/operations/${encodeURIComponent(key)}` },
    });
  });

  it("an operator reconciles it committed: already_committed (200) returns the chain and its receipt", async () => {
    const reconciled = await ui.post(`/api/v1/chains/${encodeURIComponent(timeout.chainId)}/reconcile`, {
      status: "committed",
      receipt: "reports/42@v1",
    });
    expect(reconciled.status).toBe(200);
    const response = await guard(key, { tool, holder: "agent-b", leaseMs: 60_000 });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      decision: "already_committed",
      status: "committed",
      committed: { chainId: timeout.chainId, receipts: { operator: "reports/42@v1" } },
    });
  });

  it("GET lists the attempt, the lease and every decision in order", async () => {
    const view = await read(key);
    expect(view).toMatchObject({
      operationKey: key,
      status: "committed",
      tool,
      attempts: [{ chainId: timeout.chainId, effect: "committed" }],
      lease: { holder: "agent-a", state: "consumed" },
    });
    expect(view.decisions.map((d: { decision: string }) => d.decision)).toEqual([
      "proceed",
      "wait",
      "reconcile_first",
      "already_committed",
    ]);
    expect(view.decisions[0]).toMatchObject({ holder: "agent-a", actor: "key:agent", status: "none" });
  });
});

describe("other paths to each status", () => {
  it("a write reconciled absent may be retried: proceed", async () => {
    const key = "op:absent-1";
    const timeout = attemptRecord("effect_unknown", key, "absent");
    await ingest(timeout);
    expect((await guard(key, { tool: toolOf(timeout), holder: "a", leaseMs: 1000 })).status).toBe(409);
    const reconciled = await ui.post(`/api/v1/chains/${encodeURIComponent(timeout.chainId)}/reconcile`, {
      status: "absent",
    });
    expect(reconciled.status).toBe(200);
    const response = await guard(key, { tool: toolOf(timeout), holder: "a", leaseMs: 1000 });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ decision: "proceed", status: "absent" });
  });

  it("a lease that expires with no record is in doubt, never proceed", async () => {
    const key = "op:vanished";
    expect((await guard(key, { tool: "create_report", holder: "a", leaseMs: 1 })).status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 5)); // past a 1 ms lease
    const response = await guard(key, { tool: "create_report", holder: "b", leaseMs: 1000 });
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({
      decision: "reconcile_first",
      error: { code: "operation_in_doubt" },
      attempts: [],
      lease: { holder: "a", state: "expired" },
    });
  });

  it("a working chain is in flight; a successful write is committed without any guard call", async () => {
    const working = attemptRecord("working", "op:working", "w");
    const healthy = attemptRecord("healthy", "op:healthy", "h");
    await ingest(working, healthy);
    expect(await read("op:working")).toMatchObject({
      status: "in_flight",
      attempts: [{ effect: "pending" }],
    });
    const wait = await guard("op:working", { tool: toolOf(working), holder: "a", leaseMs: 1000 });
    expect(wait.status).toBe(409);
    expect(wait.headers.get("retry-after")).toBe("5"); // no lease to wait for: the default
    expect(await wait.json()).toMatchObject({ decision: "wait", error: { code: "operation_in_progress" } });
    const response = await guard("op:healthy", { tool: toolOf(healthy), holder: "a", leaseMs: 1000 });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      decision: "already_committed",
      committed: { chainId: healthy.chainId },
    });
  });
});

describe("bad guard requests: a code and a path, nothing stored", () => {
  it.each([
    ["no tool", { holder: "a", leaseMs: 1000 }, "$.tool"],
    ["a lease of 0", { tool: "t", holder: "a", leaseMs: 0 }, "$.leaseMs"],
    ["a lease past one hour", { tool: "t", holder: "a", leaseMs: 3_600_001 }, "$.leaseMs"],
    ["a lease as text", { tool: "t", holder: "a", leaseMs: "10" }, "$.leaseMs"],
    ["an empty holder", { tool: "t", holder: "", leaseMs: 10 }, "$.holder"],
  ])("%s → 422 invalid_body at %s", async (_, body, path) => {
    const response = await guard("op:bad-body", body);
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ error: { code: "invalid_body", issues: [{ path }] } });
  });

  it.each([
    ["a space", "op 1"],
    ["too long", "k".repeat(129)],
    ["a comma", "op,1"],
  ])("a key with %s → 400 invalid_operation_key at $.path.key", async (_, key) => {
    const response = await fetch(`${app.baseUrl}${opPath(key)}/attempts`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${agentKey}` },
      body: JSON.stringify({ tool: "t", holder: "a", leaseMs: 10 }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: "invalid_operation_key", issues: [{ path: "$.path.key" }] },
    });
    const get = await agent.get(opPath(key));
    expect(get.status).toBe(400);
  });

  it("a read-only key cannot ask the guard (403); a holder carrying a credential → 422 secret_detected", async () => {
    expect((await guard("op:bad-body", { tool: "t", holder: "a", leaseMs: 10 }, readerKey)).status).toBe(403);
    const secret = await guard("op:bad-body", {
      tool: "t",
      holder: `AKIA${"ABCDEFGHIJKLMNOP"}`,
      leaseMs: 10,
    });
    expect(secret.status).toBe(422);
    expect(await secret.json()).toMatchObject({
      error: { code: "secret_detected", issues: [{ path: "$.holder" }] },
    });
    expect(await decisionsOf("op:bad-body")).toEqual([]);
    expect((await sql.query("select 1 from operations where operation_key = 'op:bad-body'")).rowCount).toBe(
      0,
    );
  });
});

describe("racing callers", () => {
  it("three agents racing on 100 keys: exactly one proceed per key, 100 lease rows, 300 decisions", async () => {
    const keys = Array.from({ length: 100 }, (_, i) => `race:${i}`);
    const agents = ["agent-1", "agent-2", "agent-3"];
    const responses = await Promise.all(
      agents.flatMap((holder) =>
        keys.map(async (key) => {
          const response = await guard(key, { tool: "create_report", holder, leaseMs: 60_000 });
          return { key, status: response.status, body: await response.json() };
        }),
      ),
    );
    for (const key of keys) {
      const mine = responses.filter((r) => r.key === key);
      expect(mine.filter((r) => r.status === 201).map((r) => r.body.decision)).toEqual(["proceed"]);
      expect(mine.filter((r) => r.status === 409).map((r) => r.body.error.code)).toEqual([
        "operation_in_progress",
        "operation_in_progress",
      ]);
    }
    const counts = await sql.query(
      `select (select count(*) from operations where operation_key like 'race:%')::int as operations,
        (select count(*) from operation_decisions where operation_key like 'race:%' and decision = 'proceed')::int
          as proceeds,
        (select count(*) from operation_decisions where operation_key like 'race:%')::int as decisions`,
    );
    expect(counts.rows[0]).toEqual({ operations: 100, proceeds: 100, decisions: 300 });
  });

  it("racing to retry writes proven absent (a lease already granted and consumed): still one proceed per key", async () => {
    // The lease each retry replaces carries microseconds; a grant goes through only while the lease is the one its
    // caller read, so the losers read and decide again (then, losing twice, under the row lock) and wait.
    const timeouts = Array.from({ length: 20 }, (_, i) =>
      attemptRecord("effect_unknown", `regrant:${i}`, `rg${i}`),
    );
    const tool = toolOf(timeouts[0] as HealthRecord);
    for (const timeout of timeouts) {
      const key = timeout.call?.operationKey as string;
      expect((await guard(key, { tool, holder: "first", leaseMs: 60_000 })).status).toBe(201);
    }
    await ingest(...timeouts);
    for (const timeout of timeouts) {
      const reconciled = await ui.post(`/api/v1/chains/${encodeURIComponent(timeout.chainId)}/reconcile`, {
        status: "absent",
      });
      expect(reconciled.status).toBe(200);
    }
    const responses = await Promise.all(
      ["agent-1", "agent-2", "agent-3"].flatMap((holder) =>
        timeouts.map(async (timeout) => {
          const key = timeout.call?.operationKey as string;
          const response = await guard(key, { tool, holder, leaseMs: 60_000 });
          return { key, status: response.status, body: await response.json() };
        }),
      ),
    );
    for (const timeout of timeouts) {
      const mine = responses.filter((r) => r.key === timeout.call?.operationKey);
      expect(mine.filter((r) => r.status === 201).map((r) => r.body.status)).toEqual(["absent"]);
      expect(mine.filter((r) => r.status === 409).map((r) => r.body.error.code)).toEqual([
        "operation_in_progress",
        "operation_in_progress",
      ]);
      expect((await decisionsOf(timeout.call?.operationKey as string)).sort()).toEqual([
        "proceed",
        "proceed",
        "wait",
        "wait",
      ]);
    }
  });
  it("90 racing refusals on 30 keys no guard call bound yet: each stored before its answer, each key bound once", async () => {
    // In doubt from the start: timed-out writes recorded without a guard call, so their keys have no row yet and the
    // first stored refusal binds each to its tool.
    const timeouts = Array.from({ length: 30 }, (_, i) =>
      attemptRecord("effect_unknown", `grouped:${i}`, `gr${i}`),
    );
    await ingest(...timeouts);
    const tool = toolOf(timeouts[0] as HealthRecord);
    const storedWhenAnswered: number[] = [];
    const responses = await Promise.all(
      ["agent-1", "agent-2", "agent-3"].flatMap((holder) =>
        timeouts.map(async (timeout) => {
          const key = timeout.call?.operationKey as string;
          const response = await guard(key, { tool, holder, leaseMs: 60_000 });
          const stored = await sql.query(
            "select count(*)::int as n from operation_decisions where operation_key = $1 and holder = $2",
            [key, holder],
          );
          storedWhenAnswered.push(stored.rows[0].n);
          return { status: response.status, body: await response.json() };
        }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(90).fill(409));
    expect(new Set(responses.map((r) => r.body.error.code))).toEqual(new Set(["operation_in_doubt"]));
    expect(storedWhenAnswered).toEqual(Array(90).fill(1));
    const stored = await sql.query(
      `select (select count(*) from operations where operation_key like 'grouped:%' and tool = $1)::int as bound,
        (select count(*) from operation_decisions where operation_key like 'grouped:%'
          and decision = 'reconcile_first' and status = 'in_doubt')::int as refusals,
        (select count(distinct (operation_key, holder)) from operation_decisions
          where operation_key like 'grouped:%')::int as askers`,
      [tool],
    );
    expect(stored.rows[0]).toEqual({ bound: 30, refusals: 90, askers: 90 });
  });
});
