import { describe, expect, it } from "vitest";
import { apiClient } from "@/tests/support/app-server";
import { otlpTestApp } from "@/tests/support/otlp-app";
import {
  gzip,
  jsonBody,
  mcpSpan,
  newSpanId,
  newTraceId,
  postTraces,
  protobufBody,
  readProtobufResponse,
  readStatus,
} from "@/tests/support/otlp-exports";
import { buildRecords, redactSpan } from "@/lib/otlp";
import { normaliseExport } from "@/lib/server/otlp/normalise-spans";
import { decodeExportRequest } from "@/lib/server/otlp/otlp-proto";

const otlp = otlpTestApp();

const count = (table: string) => otlp.count(`select count(*)::int as n from ${table}`);
const counts = async () => ({ spans: await count("otlp_spans"), records: await count("health_records") });
const send = otlp.post;
const JSON_TYPE = { "content-type": "application/json" };

async function protobufAnswer(response: Response) {
  expect(response.headers.get("content-type")).toBe("application/x-protobuf");
  return readProtobufResponse(new Uint8Array(await response.arrayBuffer()));
}

/** rejectedSpans of a protobuf answer (an int64, which the deserializer gives as a Long). */
const rejectedSpans = (answer: { partialSuccess?: { rejectedSpans?: unknown } }) =>
  Number(String(answer.partialSuccess?.rejectedSpans ?? 0));

describe("POST /v1/traces stores spans and ingests their chains", () => {
  it("a protobuf export of a tools/call span is stored redacted and becomes a record", async () => {
    const before = await counts();
    const secretArgs = "argument-value-that-must-never-be-stored";
    const span = mcpSpan({
      method: "tools/call",
      tool: "echo",
      session: "sess-proto",
      attributes: { "gen_ai.tool.call.arguments": secretArgs, "gen_ai.tool.call.result": secretArgs },
      error: true,
    });
    const response = await send(protobufBody([span]));
    expect(response.status).toBe(200);
    expect(rejectedSpans(await protobufAnswer(response))).toBe(0);
    const after = await counts();
    expect(after.spans).toBe(before.spans + 1);
    expect(after.records).toBeGreaterThan(before.records);
    const stored = await otlp.query("select span::text as span from otlp_spans where span_id = $1", [
      span.spanContext().spanId,
    ]);
    expect(stored.rows).toHaveLength(1);
    const dump = await otlp.query(
      "select (select string_agg(span::text, '') from otlp_spans) || (select string_agg(body::text, '') from health_records) as t",
    );
    expect(dump.rows[0].t).not.toContain(secretArgs);
    expect(dump.rows[0].t).not.toContain("secret detail"); // the status message
  });

  it("the same export twice: the second stores no span and no record", async () => {
    const body = protobufBody([mcpSpan({ method: "tools/call", tool: "echo", session: "sess-twice" })]);
    expect((await send(body)).status).toBe(200);
    const before = await counts();
    const again = await send(body);
    expect(again.status).toBe(200);
    expect(rejectedSpans(await protobufAnswer(again))).toBe(0);
    expect(await counts()).toEqual(before);
  });

  it("OTLP/JSON, gzip-compressed, is answered in JSON", async () => {
    const before = await counts();
    const body = gzip(jsonBody([mcpSpan({ method: "tools/call", tool: "add", session: "sess-json" })]));
    const response = await send(body, { ...JSON_TYPE, "content-encoding": "gzip" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({});
    expect((await counts()).spans).toBe(before.spans + 1);
  });

  it("a span conflicting with a stored one is rejected and the stored span is unchanged", async () => {
    const ids = { traceId: newTraceId(), spanId: newSpanId() };
    const first = mcpSpan({ method: "tools/call", tool: "echo", session: "sess-conflict", ...ids });
    expect((await send(protobufBody([first]))).status).toBe(200);
    const hash = async () =>
      (await otlp.query("select content_hash from otlp_spans where span_id = $1", [ids.spanId])).rows;
    const storedHash = await hash();
    const before = await counts();
    const other = mcpSpan({ method: "tools/call", tool: "other-tool", session: "sess-conflict", ...ids });
    const fresh = mcpSpan({ method: "tools/call", tool: "echo", session: "sess-conflict-2" });
    const response = await send(protobufBody([other, fresh]));
    expect(response.status).toBe(200);
    const answer = await protobufAnswer(response);
    expect(rejectedSpans(answer)).toBe(1);
    expect(answer.partialSuccess?.errorMessage).toContain("span_conflict");
    expect(await hash()).toEqual(storedHash);
    expect((await counts()).spans).toBe(before.spans + 1);
  });

  it("a span whose attribute is not an AnyValue is rejected alone; the others are kept", async () => {
    const good = mcpSpan({ method: "tools/call", tool: "echo", session: "sess-garbage" });
    const bad = mcpSpan({ method: "tools/call", tool: "echo", session: "sess-garbage" });
    const request = JSON.parse(jsonBody([good, bad]).toString());
    type JsonSpan = { spanId: string; attributes: unknown[] };
    const spans: JsonSpan[] = request.resourceSpans.flatMap((r: { scopeSpans: { spans: JsonSpan[] }[] }) =>
      r.scopeSpans.flatMap((scope) => scope.spans),
    );
    const badJson = spans.find((s) => s.spanId === bad.spanContext().spanId);
    badJson?.attributes.push({ key: "mcp.session.id", value: { intValue: "not-a-number" } });
    const before = await counts();
    const response = await send(Buffer.from(JSON.stringify(request)), JSON_TYPE);
    expect(response.status).toBe(200);
    const answer = (await response.json()) as {
      partialSuccess: { rejectedSpans: string; errorMessage: string };
    };
    expect(answer.partialSuccess.rejectedSpans).toBe("1");
    expect(answer.partialSuccess.errorMessage).toContain("invalid_attribute");
    expect(answer.partialSuccess.errorMessage).toContain(".attributes[");
    expect((await counts()).spans).toBe(before.spans + 1);
  });

  it("a receipt.* value that does not fit its field is a warning: the span is kept and its chain stored", async () => {
    const before = await counts();
    const span = mcpSpan({
      method: "tools/call",
      tool: "echo",
      session: "sess-warning",
      attributes: { "receipt.call.side_effect": "sometimes" },
    });
    const response = await send(jsonBody([span]), JSON_TYPE);
    expect(response.status).toBe(200);
    const answer = (await response.json()) as {
      partialSuccess: { rejectedSpans: string; errorMessage: string };
    };
    expect(answer.partialSuccess.rejectedSpans).toBe("0");
    expect(answer.partialSuccess.errorMessage).toMatch(
      /^1 span\(s\) accepted with warnings: invalid_attribute/,
    );
    expect(answer.partialSuccess.errorMessage).toContain("receipt.call.side_effect");
    const after = await counts();
    expect(after.spans).toBe(before.spans + 1);
    expect(after.records).toBe(before.records + 1);
  });

  it("a session whose record the secret guard refuses keeps none of the export's spans", async () => {
    const before = await counts();
    const token = `ghp_${"A".repeat(36)}`;
    const leaking = mcpSpan({ method: "tools/call", tool: token, session: "sess-secret" });
    const clean = mcpSpan({ method: "tools/call", tool: "echo", session: "sess-clean" });
    const response = await send(protobufBody([leaking, clean]));
    expect(response.status).toBe(200);
    const answer = await protobufAnswer(response);
    expect(rejectedSpans(answer)).toBe(1);
    expect(answer.partialSuccess?.errorMessage).toContain("secret_detected");
    expect((await counts()).spans).toBe(before.spans + 1);
    const dump = await otlp.query(
      "select (select coalesce(string_agg(span::text, ''), '') from otlp_spans) || (select string_agg(body::text, '') from health_records) as t",
    );
    expect(dump.rows[0].t).not.toContain(token);
  });

  it("a call whose record the secret guard refuses costs its own chain, not the session's other calls", async () => {
    const before = await counts();
    const session = "sess-one-bad-call";
    const traceId = newTraceId();
    const token = `ghp_${"C".repeat(36)}`;
    const init = mcpSpan({ method: "initialize", session, traceId, startMs: 0 });
    const good = mcpSpan({ method: "tools/call", tool: "echo", session, traceId, startMs: 1_000 });
    // The tool named only in the span's name (`{method} {target}`): what the span scan passes, the record's refuses.
    const bad = mcpSpan({
      method: "tools/call",
      name: `tools/call ${token}`,
      session,
      traceId,
      startMs: 2_000,
    });
    const later = mcpSpan({ method: "tools/call", tool: "add", session, traceId, startMs: 3_000 });
    const response = await send(protobufBody([init, good, bad, later]));
    expect(response.status).toBe(200);
    const answer = await protobufAnswer(response);
    expect(rejectedSpans(answer)).toBe(1);
    expect(answer.partialSuccess?.errorMessage).toContain("record_secret_detected");
    expect(answer.partialSuccess?.errorMessage).toContain("the session's other chains are kept");
    const after = await counts();
    expect(after.spans).toBe(before.spans + 3);
    expect(after.records).toBe(before.records + 2);
    const stored = await otlp.query("select span_id from otlp_spans where trace_id = $1 order by span_id", [
      traceId,
    ]);
    const ids = (spans: { spanContext: () => { spanId: string } }[]) =>
      spans.map((span) => span.spanContext().spanId).sort();
    expect(stored.rows.map((row) => row.span_id)).toEqual(ids([init, good, later]));
    const chains = await otlp.query("select chain_id from chains where chain_id like $1 order by chain_id", [
      `otlp:${traceId}:%`,
    ]);
    expect(chains.rows.map((row) => row.chain_id)).toEqual(
      ids([good, later]).map((spanId) => `otlp:${traceId}:${spanId}`),
    );
    // The refused call sent again alone is refused again; the stored chains are unchanged.
    const again = await send(protobufBody([bad]));
    expect(rejectedSpans(await protobufAnswer(again))).toBe(1);
    expect(await counts()).toEqual(after);
    const dump = await otlp.query(
      "select (select coalesce(string_agg(span::text, ''), '') from otlp_spans) || (select string_agg(body::text, '') from health_records) as t",
    );
    expect(dump.rows[0].t).not.toContain(token);
  });
});

describe("kept values are scanned as stored", () => {
  it("a credential in a receipt.* value no record uses (a receipt on a span outside any call) is rejected, never stored", async () => {
    const before = await counts();
    const token = `ghp_${"B".repeat(36)}`;
    // A resources/list span with an effect receipt: redaction keeps receipt.* values, but no call reads this one.
    const leaking = mcpSpan({
      method: "resources/list",
      session: "sess-receipt-leak",
      attributes: { "receipt.effect.receipt": token },
    });
    const clean = mcpSpan({ method: "tools/call", tool: "echo", session: "sess-label-clean" });
    const response = await send(jsonBody([leaking, clean]), JSON_TYPE);
    expect(response.status).toBe(200);
    const answer = (await response.json()) as {
      partialSuccess: { rejectedSpans: string; errorMessage: string };
    };
    expect(answer.partialSuccess.rejectedSpans).toBe("1");
    expect(answer.partialSuccess.errorMessage).toContain("secret_detected");
    expect(answer.partialSuccess.errorMessage).toContain("receipt.effect.receipt");
    expect((await counts()).spans).toBe(before.spans + 1);
    const dump = await otlp.query("select coalesce(string_agg(span::text, ''), '') as t from otlp_spans");
    expect(dump.rows[0].t).not.toContain(token);
  });
});

describe("records stored before", () => {
  it("an export whose records /api/v1/records stored already stores its spans and no record again", async () => {
    const body = protobufBody([
      mcpSpan({ method: "tools/call", tool: "echo", session: "sess-native-first" }),
    ]);
    const spans = normaliseExport(decodeExportRequest(body)).spans.map(redactSpan);
    const { records } = buildRecords(spans);
    expect(records.length).toBeGreaterThan(0);
    expect((await apiClient(otlp.baseUrl, otlp.key).post(records)).status).toBe(200);
    const before = await counts();
    const response = await send(body);
    expect(response.status).toBe(200);
    expect(rejectedSpans(await protobufAnswer(response))).toBe(0);
    expect(await counts()).toEqual({ spans: before.spans + 1, records: before.records });
  });
});

describe("spans of one session across exports", () => {
  it("a session's spans sent in reverse order over two exports re-assemble one chain", async () => {
    const traceId = newTraceId();
    const call = mcpSpan({
      method: "tools/call",
      tool: "echo",
      session: "sess-order",
      traceId,
      startMs: 2_000,
    });
    const init = mcpSpan({ method: "initialize", session: "sess-order", traceId, startMs: 0 });
    const chainsBefore = await count("chains");
    expect((await send(protobufBody([call]))).status).toBe(200);
    expect(await count("chains")).toBe(chainsBefore + 1);
    const before = await counts();
    expect((await send(protobufBody([init]))).status).toBe(200);
    const after = await counts();
    expect(after.spans).toBe(before.spans + 1);
    expect(after.records).toBe(before.records + 1); // the chain's record now carries its initialize
    expect(await count("chains")).toBe(chainsBefore + 1);
    const latest = await otlp.query(
      "select record_id, chain_id from health_records order by seq desc limit 1",
    );
    const chain = await otlp.query("select current_record_id from chains where chain_id = $1", [
      latest.rows[0].chain_id,
    ]);
    expect(chain.rows[0].current_record_id).toBe(latest.rows[0].record_id);
  });

  it("concurrent exports of one session lose no span in the re-assembly", async () => {
    for (let round = 0; round < 4; round++) {
      const session = `sess-concurrent-${round}`;
      const sent = [0, 1, 2].map((i) =>
        mcpSpan({ method: "tools/call", tool: `tool-${i}`, session, startMs: i * 1_000 }),
      );
      const answers = await Promise.all(sent.map((span) => send(protobufBody([span]))));
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
      // The stored span keeps mcp.session.id only as a hash: find the spans by their ids.
      const spans = await otlp.query("select span from otlp_spans where span_id = any($1)", [
        sent.map((span) => span.spanContext().spanId),
      ]);
      expect(spans.rows).toHaveLength(3);
      // What the complete session builds must be stored: the last export saw every span of the session.
      const { records } = buildRecords(spans.rows.map((row) => row.span));
      const ids = (records as { recordId: string }[]).map((record) => record.recordId);
      expect(ids.length).toBeGreaterThan(0);
      const stored = await otlp.query("select record_id from health_records where record_id = any($1)", [
        ids,
      ]);
      expect(stored.rows).toHaveLength(ids.length);
    }
  });
});

describe("refusals are OTLP errors and store nothing", () => {
  const body = () => protobufBody([mcpSpan({ method: "tools/call", tool: "echo", session: "sess-refused" })]);

  it("401 without a key or with a bad one, as a google.rpc.Status; 403 without the ingest scope", async () => {
    const before = await counts();
    for (const bad of [undefined, "rcpt_not-a-real-key"]) {
      const response = await postTraces(otlp.baseUrl, bad, body());
      expect(response.status).toBe(401);
      expect(response.headers.get("receipt-error-code")).toBe("unauthorized");
      expect(readStatus(new Uint8Array(await response.arrayBuffer())).code).toBe(16);
    }
    const forbidden = await postTraces(otlp.baseUrl, otlp.readKey, jsonBody([]), JSON_TYPE);
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toMatchObject({ code: 7, error: { code: "forbidden" } });
    expect(await counts()).toEqual(before);
  });

  it("415 for another content type or content encoding", async () => {
    const text = await send(body(), { "content-type": "text/plain" });
    expect(text.status).toBe(415);
    expect(await text.json()).toMatchObject({ error: { code: "unsupported_media_type" } });
    const brotli = await send(body(), { "content-type": "application/x-protobuf", "content-encoding": "br" });
    expect(brotli.status).toBe(415);
    expect(brotli.headers.get("receipt-error-code")).toBe("unsupported_content_encoding");
  });

  it("400 for undecodable protobuf, JSON, gzip or envelope — never a 500", async () => {
    const before = await counts();
    const cases: [Buffer, Record<string, string>, string][] = [
      [
        Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01]),
        { "content-type": "application/x-protobuf" },
        "invalid_protobuf",
      ],
      [Buffer.from("{not json"), JSON_TYPE, "invalid_json"],
      [Buffer.from(JSON.stringify({ resourceSpans: 5 })), JSON_TYPE, "invalid_otlp"],
      [Buffer.from("not gzip at all"), { ...JSON_TYPE, "content-encoding": "gzip" }, "invalid_gzip"],
    ];
    for (const [payload, headers, code] of cases) {
      const response = await send(payload, headers);
      expect(response.status, code).toBe(400);
      expect(response.headers.get("receipt-error-code")).toBe(code);
      if (headers["content-type"] === "application/x-protobuf") {
        expect(readStatus(new Uint8Array(await response.arrayBuffer())).code).toBe(3);
      } else {
        expect(await response.json()).toMatchObject({ code: 3, error: { code } });
      }
    }
    expect(await counts()).toEqual(before);
  });

  it("413 past 5 MiB, as sent or once inflated (a gzip bomb stops at the limit)", async () => {
    const large = await send(Buffer.alloc(5 * 1024 * 1024 + 1, 0x20), JSON_TYPE);
    expect(large.status).toBe(413);
    const bomb = gzip(Buffer.alloc(64 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const inflated = await send(bomb, { ...JSON_TYPE, "content-encoding": "gzip" });
    expect(inflated.status).toBe(413);
    expect(await inflated.json()).toMatchObject({ code: 8, error: { code: "payload_too_large" } });
  });

  it("/metrics counts exports and spans by outcome, and rejected spans by code", async () => {
    const scrape = otlp.metrics;
    /** A sample's value (0 when the series does not exist yet). */
    const value = (text: string, series: string) => {
      const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
      return line === undefined ? 0 : Number(line.slice(series.length + 1));
    };
    const series = {
      accepted: 'receipt_otlp_exports_total{outcome="accepted"}',
      partial: 'receipt_otlp_exports_total{outcome="partial"}',
      invalidJson: 'receipt_otlp_exports_total{outcome="invalid_json"}',
      stored: 'receipt_otlp_spans_total{outcome="stored",code=""}',
      duplicate: 'receipt_otlp_spans_total{outcome="duplicate",code=""}',
      conflict: 'receipt_otlp_spans_total{outcome="rejected",code="span_conflict"}',
    };
    const before = await scrape();
    const ids = { traceId: newTraceId(), spanId: newSpanId() };
    const first = mcpSpan({ method: "tools/call", tool: "echo", session: "sess-metrics", ...ids });
    expect((await send(protobufBody([first]))).status).toBe(200); // accepted: 1 stored
    expect((await send(protobufBody([first]))).status).toBe(200); // accepted: 1 duplicate
    const conflicting = mcpSpan({ method: "tools/call", tool: "other", session: "sess-metrics", ...ids });
    const fresh = mcpSpan({ method: "tools/call", tool: "echo", session: "sess-metrics-2" });
    expect((await send(protobufBody([conflicting, fresh]))).status).toBe(200); // partial: 1 stored, 1 rejected
    expect((await send(Buffer.from("{not json"), JSON_TYPE)).status).toBe(400); // refused whole
    const after = await scrape();
    const delta = (name: keyof typeof series) => value(after, series[name]) - value(before, series[name]);
    expect({
      accepted: delta("accepted"),
      partial: delta("partial"),
      invalidJson: delta("invalidJson"),
      stored: delta("stored"),
      duplicate: delta("duplicate"),
      conflict: delta("conflict"),
    }).toEqual({ accepted: 2, partial: 1, invalidJson: 1, stored: 2, duplicate: 1, conflict: 1 });
  });

  it("the coverage answer counts refused spans and exports by code in its window", async () => {
    const read = async (since?: string) => {
      const query = since ? `?since=${encodeURIComponent(since)}` : "";
      const response = await fetch(`${otlp.baseUrl}/api/v1/coverage${query}`, {
        headers: { authorization: `Bearer ${otlp.readKey}` },
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as {
        otlpRefusals: { code: string; spans: number; exports: number }[];
      };
      return new Map(body.otlpRefusals.map((refusal) => [refusal.code, refusal]));
    };
    const before = await read();
    const ids = { traceId: newTraceId(), spanId: newSpanId() };
    expect(
      (await send(protobufBody([mcpSpan({ method: "tools/call", tool: "a", session: "sess-cov", ...ids })])))
        .status,
    ).toBe(200);
    const conflicting = [
      mcpSpan({ method: "tools/call", tool: "b", session: "sess-cov", ...ids }),
      mcpSpan({ method: "tools/call", tool: "c", session: "sess-cov", ...ids }),
    ];
    expect(rejectedSpans(await protobufAnswer(await send(protobufBody(conflicting))))).toBe(2);
    expect((await send(Buffer.from("{not json"), JSON_TYPE)).status).toBe(400);
    const after = await read();
    const delta = (code: string) => ({
      spans: (after.get(code)?.spans ?? 0) - (before.get(code)?.spans ?? 0),
      exports: (after.get(code)?.exports ?? 0) - (before.get(code)?.exports ?? 0),
    });
    expect(delta("span_conflict")).toEqual({ spans: 2, exports: 1 });
    expect(delta("invalid_json")).toEqual({ spans: 0, exports: 1 });
    // A window that starts in a later hour holds none of them.
    const later = await read(new Date(Date.now() + 2 * 3_600_000).toISOString());
    expect(later.size).toBe(0);
  });

  it("the native records endpoint is unaffected by the OTLP route", async () => {
    const response = await apiClient(otlp.baseUrl, otlp.key).post([]);
    expect(response.status).toBe(422);
  });
});
