import { describe, expect, it } from "vitest";
import { apiClient } from "@/tests/support/app-server";
import { otlpTestApp } from "@/tests/support/otlp-app";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { buildRecords, type OtlpSpan } from "@/lib/otlp";
import { jsonBody, mcpSpan, protobufBody, readProtobufResponse } from "@/tests/support/otlp-exports";
import { legacyRecord } from "@/tests/support/record-builders";
import { SAMPLES } from "@/tests/support/secret-samples";

// Exports at the edge of what one request may hold, against PostgreSQL's default lock table
// (max_locks_per_transaction 64): they are stored whole or refused with a 4xx, and never fail anyone else. And a
// session grown over many exports: each export reads back what it can change, not the session's history, and a
// session past its span limit refuses the export.

const SESSION_LIMIT = 1000;
const TOKEN = SAMPLES.github_token[0] as string;

const otlp = otlpTestApp({ RECEIPT_OTLP_MAX_SESSION_SPANS: String(SESSION_LIMIT) });

const count = otlp.count;

/** A native batch of `size` records, each its own chain. */
function nativeBatch(prefix: string, size: number) {
  return Array.from({ length: size }, (_, i) => ({
    ...legacyRecord(),
    recordId: `rec:${prefix}-${i}`,
    chainId: `chain:${prefix}-${i}`,
  }));
}

describe("an export of thousands of sessions and chains", () => {
  it("is stored whole while native batches sent meanwhile all succeed", async () => {
    const { rows } = await otlp.query("select current_setting('max_locks_per_transaction') as v");
    expect(rows[0].v).toBe("64");
    const SESSIONS = 6000;
    // One tools/call span a session: a session, a chain and a record each, 18,000 keys to serialise writers on.
    const spans = Array.from({ length: SESSIONS }, (_, i) =>
      mcpSpan({ method: "tools/call", tool: "echo", session: `wide-${i}`, startMs: i }),
    );
    const body = protobufBody(spans);
    expect(body.length).toBeLessThan(5 * 1024 * 1024);
    const native = apiClient(otlp.baseUrl, otlp.key);
    const exportAnswer = otlp.post(body);
    // Native batches from other clients, some sent while the export holds its locks.
    const batches = await Promise.all(
      Array.from({ length: 12 }, async (_, b) => {
        await new Promise((resolve) => setTimeout(resolve, b * 50));
        const response = await native.post(nativeBatch(`beside-${b}`, 50));
        return response.status;
      }),
    );
    const response = await exportAnswer;
    expect(response.status).toBe(200);
    const answer = readProtobufResponse(new Uint8Array(await response.arrayBuffer()));
    expect(Number(String(answer.partialSuccess?.rejectedSpans ?? 0))).toBe(0);
    expect(batches).toEqual(Array(12).fill(200));
    expect(await count("select count(*)::int as n from otlp_spans")).toBe(SESSIONS);
    expect(await count("select count(*)::int as n from chains where chain_id like 'otlp:%'")).toBe(SESSIONS);
    expect(await count("select count(*)::int as n from chains where chain_id like 'chain:beside-%'")).toBe(
      600,
    );
  });
});

async function sendOk(spans: ReadableSpan[]) {
  const response = await otlp.post(protobufBody(spans));
  expect(response.status).toBe(200);
  const answer = readProtobufResponse(new Uint8Array(await response.arrayBuffer()));
  expect(Number(String(answer.partialSuccess?.rejectedSpans ?? 0))).toBe(0);
}

/** Spans read back to re-assemble sessions (receipt_otlp_session_spans_read_total), from /metrics. */
async function spansReadBack(): Promise<number> {
  const line = (await otlp.metrics())
    .split("\n")
    .find((candidate) => candidate.startsWith("receipt_otlp_session_spans_read_total "));
  return line === undefined ? 0 : Number(line.split(" ")[1]);
}

/** Each call its own trace, as an MCP client's SDK makes them; `from` numbers them on in time. */
const calls = (session: string, from: number, n: number) =>
  Array.from({ length: n }, (_, i) =>
    mcpSpan({ method: "tools/call", tool: "echo", session, startMs: 1000 + (from + i) * 10 }),
  );

/** The records the mapping builds from every span stored in the session of `span`: what a whole rebuild stores. */
async function wholeSessionRecords(span: ReadableSpan) {
  const { rows } = await otlp.query<{ span: OtlpSpan }>(
    `select span from otlp_spans
      where session_key = (select session_key from otlp_spans where span_id = $1)`,
    [span.spanContext().spanId],
  );
  return buildRecords(rows.map((row) => row.span)).records as { recordId: string; chainId: string }[];
}

/** Each chain of `records` as stored: its current record id, and how many records it has had. */
async function storedChains(records: { chainId: string }[]) {
  const { rows } = await otlp.query<{ chain_id: string; current_record_id: string; record_count: number }>(
    "select chain_id, current_record_id, record_count from chains where chain_id = any($1::text[])",
    [records.map((record) => record.chainId)],
  );
  return rows;
}

describe("native batches at their size limit, many at once", () => {
  it("all succeed: 2,000 chain and record keys each no longer fill the lock table", async () => {
    const native = apiClient(otlp.baseUrl, otlp.key);
    const statuses = await Promise.all(
      Array.from({ length: 8 }, async (_, b) => (await native.post(nativeBatch(`full-${b}`, 1000))).status),
    );
    expect(statuses).toEqual(Array(8).fill(200));
    expect(await count("select count(*)::int as n from chains where chain_id like 'chain:full-%'")).toBe(
      8000,
    );
  });
});

describe("a session grown export by export", () => {
  it("reads back the session's shared spans and the traces an export adds to, and builds what a whole rebuild builds", async () => {
    const session = "grown";
    const handshake = [
      mcpSpan({ method: "initialize", session, startMs: 0, durationMs: 20 }),
      mcpSpan({ method: "tools/list", session, startMs: 30, durationMs: 10 }),
    ];
    await sendOk([...handshake, ...calls(session, 0, 100)]);
    const reads: number[] = [];
    for (let n = 1; n <= 3; n++) {
      const before = await spansReadBack();
      await sendOk(calls(session, n * 100, 100));
      reads.push((await spansReadBack()) - before);
    }
    // The handshake's two spans and the export's own hundred, each time: never the calls stored before.
    expect(reads).toEqual([102, 102, 102]);
    const whole = await wholeSessionRecords(handshake[0] as ReadableSpan);
    expect(whole).toHaveLength(400);
    const chains = await storedChains(whole);
    expect(new Map(chains.map((row) => [row.chain_id, row.current_record_id]))).toEqual(
      new Map(whole.map((record) => [record.chainId, record.recordId])),
    );
  });

  it("re-assembles the whole session when a late tools/list changes what later calls saw", async () => {
    const session = "late-catalog";
    await sendOk([
      mcpSpan({ method: "initialize", session, startMs: 0, durationMs: 20 }),
      ...calls(session, 0, 50),
    ]);
    const before = await spansReadBack();
    // A tools/list started before the last 25 calls: their records gain the catalog, the first 25 keep theirs.
    const list = mcpSpan({ method: "tools/list", session, startMs: 1000 + 25 * 10 - 5, durationMs: 2 });
    await sendOk([list]);
    expect((await spansReadBack()) - before).toBe(52);
    const whole = await wholeSessionRecords(list);
    expect(whole).toHaveLength(50);
    const chains = await storedChains(whole);
    expect(new Map(chains.map((row) => [row.chain_id, row.current_record_id]))).toEqual(
      new Map(whole.map((record) => [record.chainId, record.recordId])),
    );
    expect(chains.filter((row) => row.record_count === 2)).toHaveLength(25);
  });

  it("a session holding spans stored before roles (role unknown) is read whole, and still builds what a whole rebuild builds", async () => {
    const session = "stored-before-roles";
    const first = calls(session, 0, 30);
    await sendOk([mcpSpan({ method: "initialize", session, startMs: 0, durationMs: 20 }), ...first]);
    await otlp.query(
      "update otlp_spans set role = 'unknown' where session_key = (select session_key from otlp_spans where span_id = $1)",
      [first[0]?.spanContext().spanId],
    );
    const before = await spansReadBack();
    await sendOk(calls(session, 30, 10));
    // The unknown spans make the session whole: its context (31 + the export's 10), then all 41 of it.
    expect((await spansReadBack()) - before).toBe(41 + 41);
    const whole = await wholeSessionRecords(first[0] as ReadableSpan);
    expect(whole).toHaveLength(40);
    const chains = await storedChains(whole);
    expect(new Map(chains.map((row) => [row.chain_id, row.current_record_id]))).toEqual(
      new Map(whole.map((record) => [record.chainId, record.recordId])),
    );
  });

  it("a handshake span an older release stored with a value today's rules mask is redacted again when its session is rebuilt", async () => {
    const session = "stored-unredacted";
    const handshake = mcpSpan({
      method: "initialize",
      session,
      startMs: 0,
      durationMs: 20,
      attributes: { "receipt.client.version": TOKEN },
    });
    await sendOk([handshake, ...calls(session, 0, 1)]);
    // As a release without peer masking stored it: the token kept, nothing named masked.
    const stored = await otlp.query<{ version: string | null; masked: string[] | null }>(
      `update otlp_spans set span = (jsonb_set(span::jsonb, '{attributes,receipt.client.version}', to_jsonb($2::text))
          #- '{attributes,receipt.masked}')::json
        where span_id = $1
        returning span->'attributes'->>'receipt.client.version' as version,
          span->'attributes'->'receipt.masked' as masked`,
      [handshake.spanContext().spanId, TOKEN],
    );
    expect(stored.rows).toEqual([{ version: TOKEN, masked: null }]);
    // A call added to the session rebuilds it from that span: masked again, the session's chains are kept.
    await sendOk(calls(session, 1, 1));
    const { rows } = await otlp.query<{ body: { session: { client: { version: string } } } }>(
      `select r.body from chains c join health_records r on r.record_id = c.current_record_id
        where c.chain_id = any(select 'otlp:' || trace_id || ':' || span_id from otlp_spans
          where session_key = (select session_key from otlp_spans where span_id = $1)
            and span->>'name' like 'tools/call%')`,
      [handshake.spanContext().spanId],
    );
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row.body.session.client.version).not.toBe(TOKEN);
  });

  it("refuses an export that would take a session past its limit with 422 and the first span's path, storing nothing", async () => {
    const session = "limited";
    await sendOk(calls(session, 0, SESSION_LIMIT - 200));
    const spansBefore = await count("select count(*)::int as n from otlp_spans");
    const recordsBefore = await count("select count(*)::int as n from health_records");
    const over = await otlp.post(jsonBody(calls(session, 900, 201)), {
      "content-type": "application/json",
    });
    expect(over.status).toBe(422);
    expect(over.headers.get("receipt-error-code")).toBe("session_span_limit");
    expect(await over.json()).toMatchObject({
      code: 3,
      error: {
        code: "session_span_limit",
        issues: [{ path: "$.resourceSpans[0].scopeSpans[0].spans[0]", code: "session_span_limit" }],
      },
    });
    expect(await count("select count(*)::int as n from otlp_spans")).toBe(spansBefore);
    expect(await count("select count(*)::int as n from health_records")).toBe(recordsBefore);
    await sendOk(calls(session, 900, 200)); // up to the limit exactly is accepted
    const protobuf = await otlp.post(protobufBody(calls(session, 1200, 1)));
    expect(protobuf.status).toBe(422);
    expect(protobuf.headers.get("receipt-error-code")).toBe("session_span_limit");
  });
});

describe("JSON bodies of megabytes, parsed in steps", () => {
  it("an OTLP/JSON export of 4,000 sessions (over 2 MiB: parsed in steps) is stored whole", async () => {
    const spans = Array.from({ length: 4000 }, (_, i) =>
      mcpSpan({ method: "tools/call", tool: "echo", session: `json-wide-${i}`, startMs: i }),
    );
    const body = jsonBody(spans);
    expect(body.length).toBeGreaterThan(2 * 1024 * 1024);
    expect(body.length).toBeLessThan(5 * 1024 * 1024);
    const chainsBefore = await count("select count(*)::int as n from chains where chain_id like 'otlp:%'");
    const response = await otlp.post(body, { "content-type": "application/json" });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({});
    expect(await count("select count(*)::int as n from chains where chain_id like 'otlp:%'")).toBe(
      chainsBefore + 4000,
    );
  });

  it("5 MiB of nested brackets: 400 invalid_json naming the depth, from /v1/traces and /api/v1/records", async () => {
    const bomb = Buffer.from(`${"[".repeat(2_500_000)}${"]".repeat(2_500_000)}`);
    const traces = await otlp.post(bomb, { "content-type": "application/json" });
    expect(traces.status).toBe(400);
    expect(await traces.json()).toMatchObject({
      code: 3,
      error: { code: "invalid_json", message: "JSON nested deeper than 512 levels" },
    });
    const records = await fetch(`${otlp.baseUrl}/api/v1/records`, {
      method: "POST",
      headers: { authorization: `Bearer ${otlp.key}`, "content-type": "application/json" },
      body: bomb,
    });
    expect(records.status).toBe(400);
    expect(await records.json()).toMatchObject({
      error: {
        code: "invalid_json",
        issues: [
          { path: "$", code: "invalid_json", message: "the body: JSON nested deeper than 512 levels" },
        ],
      },
    });
  });
});
