import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TCheck, ZCheck } from "@/lib/checks/config";
import { runCheck } from "@/lib/server/checks/run-check";
import { createTestDatabase } from "@/tests/support/test-database";

// A check reads a real HTTP service and a real PostgreSQL table (issue 40 §3): statuses and rows become committed,
// absent or unknown; timeouts and 5xx are retried a bounded number of times; the SQL runs read-only with a statement
// timeout; the outbound policy applies to the HTTP read; headers come from the environment.
process.env.RECEIPT_OUTBOUND_ALLOW = "127.0.0.0/8";

let server: Server;
let base: string;
const seen: { path: string; authorization: string | undefined }[] = [];
let flaky = 0;
let db: Awaited<ReturnType<typeof createTestDatabase>>;

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ path: req.url ?? "", authorization: req.headers.authorization });
    if (req.url?.startsWith("/hang")) return;
    if (req.url?.startsWith("/flaky") && flaky++ < 2) return res.writeHead(503).end();
    if (req.url === "/reports/op%2F1")
      return res.writeHead(200, { "content-type": "application/json" }).end('{"state":"done"}');
    if (req.url?.startsWith("/flaky")) return res.writeHead(200).end("{}");
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  db = await createTestDatabase();
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query("create table payments (operation_key text primary key, status text not null)");
  await client.query("insert into payments values ('op-paid', 'paid'), ('op-void', 'void')");
  await client.end();
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await db?.drop();
});

const check = (fields: Record<string, unknown>): TCheck => ZCheck.parse({ name: "c", match: {}, ...fields });
const values = (operationKey: string | null) => ({ operationKey, receipt: null, labels: {} });

describe("an http check", () => {
  it("reads the rendered URL with headers from the environment and decides from the answer", async () => {
    const decision = await runCheck(
      check({
        http: {
          url: `${base}/reports/{operationKey}`,
          headersFromEnv: { authorization: "RECEIPT_CHECK_TOKEN" },
          outcome: { pointer: "/state", equals: "done" },
        },
      }),
      values("op/1"),
      { RECEIPT_CHECK_TOKEN: "Bearer t0k" },
    );
    expect(decision).toEqual({ effect: "committed", outcome: "pass", receipt: "HTTP 200" });
    expect(seen.at(-1)).toEqual({ path: "/reports/op%2F1", authorization: "Bearer t0k" });
  });

  it("404 is absent; a 503 is retried and a later 200 counts", async () => {
    const http = { url: `${base}/reports/{operationKey}` };
    expect(await runCheck(check({ http }), values("nope"), {})).toEqual({
      effect: "absent",
      outcome: null,
      receipt: "HTTP 404",
    });
    const before = seen.length;
    const flakyCheck = check({ http: { url: `${base}/flaky/{operationKey}` }, attempts: 3 });
    expect(await runCheck(flakyCheck, values("x"), {}, 10)).toMatchObject({
      effect: "committed",
      receipt: "HTTP 200",
    });
    expect(seen.length - before).toBe(3);
  });

  it("a destination that hangs is unknown after the bounded attempts, each cut at the timeout", async () => {
    const before = seen.length;
    const started = Date.now();
    const decision = await runCheck(
      check({ http: { url: `${base}/hang/{operationKey}` }, timeoutMs: 200, attempts: 2 }),
      values("x"),
      {},
      10,
    );
    expect(decision).toEqual({ effect: "unknown", outcome: null, receipt: "timeout after 200 ms" });
    expect(seen.length - before).toBe(2);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("names what is missing instead of reading: a value the chain lacks, an unset variable", async () => {
    expect(await runCheck(check({ http: { url: `${base}/r/{operationKey}` } }), values(null), {})).toEqual({
      effect: "unknown",
      outcome: null,
      receipt: "the chain has no operationKey",
    });
    const withHeader = check({
      http: { url: `${base}/r/x`, headersFromEnv: { authorization: "RECEIPT_CHECK_UNSET" } },
    });
    expect((await runCheck(withHeader, values("k"), {})).receipt).toBe("RECEIPT_CHECK_UNSET is not set");
  });

  it("is refused by the outbound policy like any send, once, with its sentence", async () => {
    const decision = await runCheck(
      check({ http: { url: "http://169.254.169.254/latest/{operationKey}" } }),
      values("k"),
      {},
    );
    expect(decision).toEqual({
      effect: "unknown",
      outcome: null,
      receipt: "refused by the outbound policy (metadata address)",
    });
  });
});

describe("a sql check", () => {
  const sql = (query: string, outcome?: unknown) =>
    check({
      sql: { connection: "RECEIPT_CHECK_PAYMENTS", query, ...(outcome ? { outcome } : {}) },
      attempts: 1,
    });
  const env = () => ({ RECEIPT_CHECK_PAYMENTS: db.url });

  it("a row is committed (with the column's outcome), none absent; $1 is the operation key", async () => {
    const paid = sql("select status from payments where operation_key = $1", {
      column: "status",
      equals: "paid",
    });
    expect(await runCheck(paid, values("op-paid"), env())).toEqual({
      effect: "committed",
      outcome: "pass",
      receipt: "1 row",
    });
    expect(await runCheck(paid, values("op-void"), env())).toEqual({
      effect: "committed",
      outcome: "fail",
      receipt: "1 row",
    });
    expect(await runCheck(paid, values("op-none"), env())).toEqual({
      effect: "absent",
      outcome: null,
      receipt: "0 rows",
    });
  });

  it("runs read-only: a query that would write is refused by PostgreSQL, and nothing changed", async () => {
    const writing = sql(
      "with gone as (delete from payments where operation_key = $1 returning 1) select * from gone",
    );
    expect(await runCheck(writing, values("op-paid"), env())).toEqual({
      effect: "unknown",
      outcome: null,
      receipt: "query failed (25006)",
    });
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    expect((await client.query("select count(*)::int as n from payments")).rows[0].n).toBe(2);
    await client.end();
  });

  it("is cut at its timeout (57014) and at an unreachable server", async () => {
    const slow = check({
      sql: { connection: "RECEIPT_CHECK_PAYMENTS", query: "select pg_sleep(5), $1::text" },
      timeoutMs: 200,
      attempts: 1,
    });
    expect(await runCheck(slow, values("k"), env())).toMatchObject({
      effect: "unknown",
      receipt: "query failed (57014)",
    });
    const down = { RECEIPT_CHECK_PAYMENTS: "postgresql://nobody@127.0.0.1:1/none" };
    expect(await runCheck(sql("select 1 where $1 is not null"), values("k"), down)).toMatchObject({
      effect: "unknown",
      receipt: "cannot connect (ECONNREFUSED)",
    });
  });
});
