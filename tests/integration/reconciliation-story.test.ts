import { execFile } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { promisify } from "node:util";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Collector,
  createCollector,
  OperationAlreadyCommittedError,
  OperationInDoubtError,
  ReceiptSink,
} from "@/packages/collector/src";
import { stdio } from "@/tests/collector/helpers";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { createTeamUser, signInCookie } from "@/tests/support/team-users";
import { createTestDatabase } from "@/tests/support/test-database";

// The story of issue 40 §4 with real parts: an MCP server on the SDK that writes a real PostgreSQL row and posts to a
// real HTTP service, an agent that calls it through the collector with the retry guard on, and Receipt's destination
// check reading the same table. A write that committed and then timed out is never repeated: the retry is refused,
// the check finds the row, the chain is reconciled, and the guard then answers already_committed. A write that hung
// before committing is found absent, and the retry writes it exactly once.
const LEDGER_SERVER = resolve("tests/collector/servers/ledger-server.ts");
const RACING_AGENT = resolve("tests/collector/servers/racing-agent.ts");
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let collector: Collector;
let ledger: Client;
let webhook: Server;
const posted: string[] = [];
let sql: pg.Client;
let api: ReturnType<typeof apiClient>;
let agentKey: string;
let bossCookie: string;

beforeAll(async () => {
  db = await createTestDatabase();
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  await sql.query("create table ledger (operation_key text primary key, amount numeric not null)");
  await sql.query("create table race_ledger (operation_key text not null, amount numeric not null)");
  webhook = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      posted.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((done) => webhook.listen(0, "127.0.0.1", done));
  const key = await createTestKey(db.url, "agent", ["ingest", "read"]);
  agentKey = key;
  const boss = await createTeamUser(db.url, "boss", "admin");
  app = await startApp(db.url, {
    RECEIPT_CHECKS_TICK_MS: "100",
    RECEIPT_CHECKS_RECHECK_MS: "60000",
    RECEIPT_CHECK_LEDGER: db.url,
  });
  bossCookie = await signInCookie(app.baseUrl, boss.username, boss.password);
  const saved = await fetch(`${app.baseUrl}/api/v1/checks/config`, {
    method: "PUT",
    headers: {
      cookie: bossCookie,
      "content-type": "application/json",
    },
    body: JSON.stringify({
      version: 1,
      checks: [
        {
          name: "ledger",
          match: { tool: "record_payment" },
          sql: {
            connection: "RECEIPT_CHECK_LEDGER",
            query: "select amount from ledger where operation_key = $1",
          },
        },
      ],
    }),
  });
  expect(saved.status).toBe(200);
  collector = createCollector({
    sink: new ReceiptSink({ baseUrl: app.baseUrl, ingestionKey: key, flushIntervalMs: 0 }),
    clientInfo: { name: "payments-agent", version: "1.0.0" },
    heartbeatMs: 0,
    operationGuard: {
      baseUrl: app.baseUrl,
      ingestionKey: key,
      holder: "payments-agent",
      whenUnreachable: "refuse",
    },
  });
  ledger = await collector.connect(
    stdio(process.execPath, ["--import", "tsx", LEDGER_SERVER], {
      LEDGER_DATABASE_URL: db.url,
      LEDGER_WEBHOOK: `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/paid`,
    }),
  );
  api = apiClient(app.baseUrl, key);
}, 120_000);
afterAll(async () => {
  await ledger?.close();
  await app?.stop();
  webhook?.closeAllConnections();
  await new Promise((done) => webhook?.close(done));
  await sql?.end();
  await db?.drop();
});

const pay = (key: string, mode: string, chainId: string) =>
  collector.callTool(ledger, {
    chainId,
    name: "record_payment",
    arguments: { key, amount: 42, mode },
    sideEffect: "write",
    operationKey: key,
    deadlineMs: 800,
  });

const rows = async (key: string) =>
  (await sql.query("select count(*)::int as n from ledger where operation_key = $1", [key])).rows[0]
    .n as number;

async function untilReconciled(chainId: string): Promise<string> {
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; ) {
    const response = await api.get(`/api/v1/chains/${encodeURIComponent(chainId)}`);
    const state = ((await response.json()) as { chain?: { state: string } } | undefined)?.chain?.state;
    if (state && state !== "effect_unknown") return state;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`${chainId} was not reconciled`);
}

describe("commit, then time out", () => {
  it("the retry is refused until the check finds the row; then already_committed, and one row", async () => {
    const key = "pay:committed-then-timeout";
    const first = await pay(key, "commit_then_hang", "chain:pay-1");
    await collector.flush();
    expect(first.chainId).toBe("chain:pay-1");
    // At once the guard refuses (the effect is unknown), unless the check already settled it: both are safe.
    const early = await pay(key, "ok", "chain:pay-1-retry").catch((error: unknown) => error);
    expect(early instanceof OperationInDoubtError || early instanceof OperationAlreadyCommittedError).toBe(
      true,
    );
    expect(await untilReconciled("chain:pay-1")).not.toBe("effect_unknown");
    await collector.flush();
    const retry = await pay(key, "ok", "chain:pay-1-retry-2").catch((error: unknown) => error);
    expect(retry).toBeInstanceOf(OperationAlreadyCommittedError);
    expect(retry).toMatchObject({ chainId: "chain:pay-1" });
    expect(await rows(key)).toBe(1);
    expect(posted.filter((body) => body.includes(key))).toHaveLength(1);
  });
});

describe("hang before committing", () => {
  it("the check finds nothing: the retry proceeds and writes exactly once", async () => {
    const key = "pay:hung-before-commit";
    await pay(key, "hang_before_commit", "chain:pay-2");
    await collector.flush();
    expect(await untilReconciled("chain:pay-2")).toBe("tool_failed");
    const retry = await pay(key, "ok", "chain:pay-2-retry");
    expect(retry.chainId).toBe("chain:pay-2-retry");
    await collector.flush();
    expect(await rows(key)).toBe(1);
    // A third attempt after the success: already committed, still one row.
    const again = await pay(key, "ok", "chain:pay-2-again").catch((error: unknown) => error);
    expect(again).toBeInstanceOf(OperationAlreadyCommittedError);
    expect(await rows(key)).toBe(1);
  });
});

/** The guard as an agent asks it, over HTTP. */
const ask = async (key: string, tool: string, leaseMs: number) => {
  const response = await fetch(`${app.baseUrl}/api/v1/operations/${encodeURIComponent(key)}/attempts`, {
    method: "POST",
    headers: { authorization: `Bearer ${agentKey}`, "content-type": "application/json" },
    body: JSON.stringify({ tool, holder: "dying-agent", leaseMs }),
  });
  return { status: response.status, body: await response.json() };
};

async function untilStatus(key: string, wanted: string): Promise<void> {
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; ) {
    const view = await (await api.get(`/api/v1/operations/${encodeURIComponent(key)}`)).json();
    if (view.status === wanted) return;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`${key} never became ${wanted}`);
}

describe("an agent that died after sending (a lease that expired with no record)", () => {
  it("the check finds the row: the lease is settled committed and the guard answers already_committed", async () => {
    const key = "pay:died-after-commit";
    expect((await ask(key, "record_payment", 200)).status).toBe(201);
    // The write reached the destination; the agent died before any record left it.
    await sql.query("insert into ledger values ($1, 42)", [key]);
    await untilStatus(key, "committed");
    const answer = await ask(key, "record_payment", 1000);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      decision: "already_committed",
      committed: { chainId: null, receipts: { effect: "check:ledger 1 row", operator: "check:ledger" } },
      lease: { state: "expired", settled: { effect: "committed", by: "check:ledger" } },
    });
  });

  it("the check finds nothing: the lease is settled absent and the next attempt proceeds", async () => {
    const key = "pay:died-before-commit";
    expect((await ask(key, "record_payment", 200)).status).toBe(201);
    await untilStatus(key, "absent");
    const answer = await ask(key, "record_payment", 1000);
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ decision: "proceed", lease: { state: "live", settled: null } });
  });

  it("an operator settles one no check reads; a second settle, a live lease or a bad body are refused", async () => {
    const key = "mail:died";
    const settle = (body: unknown, target = key) =>
      fetch(`${app.baseUrl}/api/v1/operations/${encodeURIComponent(target)}/settle`, {
        method: "POST",
        headers: { cookie: bossCookie, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    expect((await ask(key, "send_email", 60_000)).status).toBe(201);
    const live = await settle({ effect: "absent" });
    expect(live.status).toBe(409);
    expect((await live.json()).error).toMatchObject({
      code: "lease_not_in_doubt",
      issues: [{ path: "$", message: "its lease is live" }],
    });
    const bad = await settle({ effect: "maybe" });
    expect(bad.status).toBe(422);
    expect((await bad.json()).error.issues[0].path).toBe("$.effect");
    expect((await settle({ effect: "absent" }, "nobody:asked")).status).toBe(404);

    const other = "mail:died-short";
    expect((await ask(other, "send_email", 100)).status).toBe(201);
    await new Promise((done) => setTimeout(done, 150));
    expect((await ask(other, "send_email", 1000)).status).toBe(409); // in doubt: reconcile first
    const settled = await settle({ effect: "committed", receipt: "message id 4711" }, other);
    expect(settled.status).toBe(200);
    expect(await settled.json()).toMatchObject({
      status: "committed",
      lease: { settled: { effect: "committed", receipt: "message id 4711", by: "boss" } },
    });
    expect((await settle({ effect: "absent" }, other)).status).toBe(409);
    expect((await ask(other, "send_email", 1000)).body.decision).toBe("already_committed");
  });
});

describe("three agent processes racing on 100 keys", () => {
  it("the guard lets exactly one write through per key: 100 rows, each key once", async () => {
    const keys = Array.from({ length: 100 }, (_, i) => `race:${i}`);
    const agents = await Promise.all(
      ["agent-a", "agent-b", "agent-c"].map(async (name, index) => {
        const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", RACING_AGENT], {
          env: {
            ...process.env,
            AGENT_NAME: name,
            SEED: String(index + 1),
            KEYS: keys.join(","),
            RECEIPT_URL: app.baseUrl,
            RECEIPT_KEY: agentKey,
            LEDGER_DATABASE_URL: db.url,
          },
          timeout: 90_000,
        });
        return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as {
          wrote: string[];
          alreadyCommitted: number;
          inProgress: number;
        };
      }),
    );
    const { rows: ledgerRows } = await sql.query<{ n: number; keys: number }>(
      "select count(*)::int as n, count(distinct operation_key)::int as keys from race_ledger",
    );
    expect(ledgerRows[0]).toEqual({ n: 100, keys: 100 });
    // Every key was written by exactly one agent, and each of the other two was told it was already committed.
    const written = agents.flatMap((agent) => agent.wrote).sort();
    expect(written).toEqual([...keys].sort());
    expect(agents.reduce((sum, agent) => sum + agent.alreadyCommitted, 0)).toBe(200);
    // The three really raced: each wrote some keys (their orders differ), and none wrote them all.
    for (const agent of agents) expect(agent.wrote.length).toBeGreaterThan(0);
  }, 120_000);
});
