import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validateRecord } from "@/lib/contract";
import { buildRecords, type OtlpSpan, redactSpan, sessionKeyOf } from "@/lib/otlp";
import {
  FULL_RECEIPT,
  OTHER_TRACE,
  PASSING_OUTCOME,
  semconvCall,
  semconvSession,
  span,
  traceloopCall,
  traceloopSession,
} from "../support/otlp-spans";

const SESSION_ID = "8267461134f24305af708e66b8eda71a";

/**
 * Two conventions sessions (one joined by mcp.session.id across traces), a traceloop one, spans captured from
 * traceloop against server-everything, and a refused handshake: every dialect and outcome the mapping knows.
 */
function spanSet(): OtlpSpan[] {
  const joined = semconvSession({ traceId: OTHER_TRACE, sessionId: SESSION_ID, transport: "tcp" });
  const receipted = semconvCall({ sessionId: SESSION_ID, attributes: FULL_RECEIPT, events: PASSING_OUTCOME });
  const timedOut = semconvCall({
    sessionId: SESSION_ID,
    start: 200,
    end: 260,
    status: "error",
    spanId: "00000000000000d1",
    attributes: { "error.type": "timeout" },
  });
  const cancel = span({
    name: "notifications/cancelled",
    start: 250,
    parentSpanId: "00000000000000d1",
    attributes: { "mcp.method.name": "notifications/cancelled", "mcp.session.id": SESSION_ID },
  });
  const changed = span({
    name: "notifications/tools/list_changed",
    kind: "server",
    start: 180,
    attributes: { "mcp.method.name": "notifications/tools/list_changed", "mcp.session.id": SESSION_ID },
  });
  const sameTrace = [...semconvSession({ traceId: "11111111111111111111111111111111" })].concat(
    semconvCall({
      traceId: "11111111111111111111111111111111",
      status: "error",
      attributes: { "error.type": "tool_error" },
    }),
  );
  const captured: OtlpSpan[] = JSON.parse(
    readFileSync(new URL("../fixtures/otlp/traceloop-everything.json", import.meta.url), "utf8"),
  );
  const unauthorized = span({
    traceId: "22222222222222222222222222222222",
    name: "initialize",
    start: 0,
    end: 5,
    status: "error",
    attributes: { "mcp.method.name": "initialize", "error.type": "401" },
  });
  const traceloop = traceloopSession();
  return [
    ...joined,
    receipted,
    timedOut,
    cancel,
    changed,
    ...sameTrace,
    ...traceloop.spans,
    traceloopCall(traceloop.session),
    ...captured,
    unauthorized,
  ];
}

const SPANS = spanSet();
const EXPECTED = JSON.stringify(buildRecords(SPANS));

describe("buildRecords properties", () => {
  it("builds valid records for every chain of the set", () => {
    const { records, problems } = buildRecords(SPANS);
    expect(problems).toEqual([]);
    expect(records).toHaveLength(10);
    for (const record of records) expect(validateRecord(record).ok).toBe(true);
  });

  it("any order, any re-sent span and any mix of raw and stored (redacted) spans give byte-identical records", () => {
    fc.assert(
      fc.property(
        fc.shuffledSubarray(SPANS, { minLength: SPANS.length, maxLength: SPANS.length }),
        fc.array(fc.nat(SPANS.length - 1), { maxLength: 6 }),
        fc.array(fc.boolean(), { minLength: SPANS.length, maxLength: SPANS.length }),
        (ordered, resent, stored) => {
          const sent = [...ordered, ...resent.map((index) => SPANS[index] as OtlpSpan)].map((one, index) =>
            stored[index % stored.length] ? redactSpan(one) : one,
          );
          expect(JSON.stringify(buildRecords(sent))).toBe(EXPECTED);
        },
      ),
      { numRuns: 150 },
    );
  }, 30_000);

  it("split by session key (as the server assembles them), any split gives the same records", () => {
    fc.assert(
      fc.property(
        fc.shuffledSubarray(SPANS, { minLength: SPANS.length, maxLength: SPANS.length }),
        (ordered) => {
          const bySession = new Map<string, OtlpSpan[]>();
          for (const one of ordered) {
            const key = sessionKeyOf(redactSpan(one));
            expect(sessionKeyOf(one)).toBe(key);
            bySession.set(key, [...(bySession.get(key) ?? []), one]);
          }
          const parts = [...bySession.values()].map((group) => buildRecords(group));
          const records = parts.flatMap((part) => part.records) as { chainId: string }[];
          records.sort((a, b) => (a.chainId < b.chainId ? -1 : a.chainId > b.chainId ? 1 : 0));
          expect(JSON.stringify(records)).toBe(JSON.stringify(buildRecords(SPANS).records));
        },
      ),
      { numRuns: 50 },
    );
  }, 30_000);

  it("observedAt never goes back as more spans of a chain arrive", () => {
    const final = new Map(
      (buildRecords(SPANS).records as { chainId: string; observedAt: string }[]).map((r) => [
        r.chainId,
        r.observedAt,
      ]),
    );
    fc.assert(
      fc.property(fc.subarray(SPANS), (arrived) => {
        for (const record of buildRecords(arrived).records as { chainId: string; observedAt: string }[]) {
          const last = final.get(record.chainId);
          if (last !== undefined) expect(record.observedAt <= last).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  }, 30_000);

  it("redactSpan is idempotent", () => {
    for (const one of SPANS) expect(redactSpan(redactSpan(one))).toEqual(redactSpan(one));
  });
});

describe("buildRecords on any receipt.* values", () => {
  it("never throws, and every record it builds passes the contract unless a value looks like a credential", () => {
    const keys = fc.constantFrom(
      "receipt.call.side_effect",
      "receipt.call.operation_key",
      "receipt.call.deadline_ms",
      "receipt.call.inactivity_ms",
      "receipt.call.request_id",
      "receipt.call.progress_token",
      "receipt.call.result_type",
      "receipt.call.in_catalog",
      "receipt.client.name",
      "receipt.server.version",
      "receipt.protocol.era",
      "receipt.protocol.requested_version",
      "receipt.protocol.accepted_version",
      "receipt.protocol.client_supported_versions",
      "receipt.capabilities.required_server",
      "receipt.catalog.pages",
      "receipt.catalog.schema_hash",
      "receipt.catalog.ttl_ms",
      "receipt.label.env",
      "receipt.label.Bad Key",
      "jsonrpc.request.id",
      "mcp.protocol.version",
      "rpc.response.status_code",
      "error.type",
    );
    const value = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.constantFrom("write", "none", "modern", "task", "2025-06-18", "2026-07-28", "-32602", "0", "1"),
      fc.integer({ min: -5, max: 40_000_000_000 }),
      fc.double(),
      fc.boolean(),
      fc.array(fc.constantFrom("tools", "2025-06-18", "x y"), { maxLength: 3 }),
    );
    const event = fc.record({
      name: fc.constantFrom(
        "receipt.effect",
        "receipt.outcome",
        "receipt.progress",
        "receipt.task",
        "receipt.cancelled",
      ),
      at: fc.integer({ min: 0, max: 400 }),
      attributes: fc.dictionary(
        fc.constantFrom(
          "receipt.effect.status",
          "receipt.outcome.verdict",
          "receipt.outcome.verifier",
          "receipt.outcome.receipt",
          "receipt.progress.token",
          "receipt.progress.value",
          "receipt.task.id",
          "receipt.task.status",
          "receipt.task.error_code",
        ),
        value,
      ),
    });
    fc.assert(
      fc.property(
        fc.dictionary(keys, value),
        fc.array(event, { maxLength: 4 }),
        fc.option(fc.integer({ min: 100, max: 500 }), { nil: null }),
        (attributes, events, end) => {
          const { records } = buildRecords([...semconvSession(), semconvCall({ attributes, events, end })]);
          for (const record of records) {
            const validation = validateRecord(record);
            if (!validation.ok)
              expect(validation.code, JSON.stringify(validation.issues)).toBe("secret_detected");
          }
        },
      ),
      { numRuns: 300 },
    );
  }, 30_000);
});
