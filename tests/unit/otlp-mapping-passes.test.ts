import { describe, expect, it } from "vitest";
import { buildRecords, mappingPasses, type OtlpSpan, redactSpan, spanRoleOf } from "@/lib/otlp";
import { FULL_RECEIPT, PASSING_OUTCOME, semconvCall, semconvSession, span } from "@/tests/support/otlp-spans";

// An export re-assembles a session in passes (lib/otlp/span-role.ts): every pass holds the spans all chains read
// and the local spans of some traces. The passes' records and problems together must be the whole session's, so a
// session grown over many exports stores exactly what one rebuild of all its spans would.

const SESSION = "sess-passes";
const trace = (n: number) => n.toString(16).padStart(32, "a");

/** A session of every kind of span a chain reads: handshake, receipt parents, cancellations, a late tools/list. */
function mixedSession(): OtlpSpan[] {
  const spans: OtlpSpan[] = semconvSession({ sessionId: SESSION });
  for (let n = 1; n <= 9; n++) {
    const traceId = trace(n);
    const start = 100 * n;
    const agent = span({
      traceId,
      name: "agent step",
      kind: "internal",
      start: start - 5,
      end: start + 80,
      attributes: {
        "mcp.session.id": SESSION,
        ...(n % 2 === 0 ? { "receipt.call.tool": "get-weather" } : {}),
      },
    });
    const call = semconvCall({
      sessionId: SESSION,
      traceId,
      start,
      end: n % 3 === 0 ? null : start + 50,
      parentSpanId: n % 4 === 0 ? undefined : agent.spanId,
      attributes: n % 2 === 1 ? FULL_RECEIPT : { "receipt.call.deadline_ms": "not a number" },
      events: n === 5 ? PASSING_OUTCOME.map((event) => ({ ...event, at: start + 60 })) : [],
    });
    spans.push(agent, call);
    if (n === 6) {
      spans.push(
        span({
          traceId,
          name: "notifications/cancelled",
          parentSpanId: call.spanId,
          start: start + 20,
          attributes: { "mcp.method.name": "notifications/cancelled", "mcp.session.id": SESSION },
        }),
      );
    }
  }
  spans.push(
    span({
      traceId: trace(20),
      name: "notifications/tools/list_changed",
      kind: "server",
      start: 450,
      attributes: { "mcp.method.name": "notifications/tools/list_changed", "mcp.session.id": SESSION },
    }),
    span({
      traceId: trace(21),
      name: "tools/list",
      start: 640,
      end: 650,
      status: "error",
      attributes: { "mcp.method.name": "tools/list", "mcp.session.id": SESSION, "jsonrpc.request.id": "9" },
    }),
    semconvCall({ sessionId: SESSION, traceId: trace(22), start: 990, tool: "" }),
  );
  return spans;
}

function inPasses(spans: OtlpSpan[], maxLocal: number) {
  const roled = spans.map(redactSpan).map((item) => ({ span: item, role: spanRoleOf(item) }));
  const passes = mappingPasses(roled, maxLocal);
  const records = new Map<string, unknown>();
  const problems = new Set<string>();
  for (const pass of passes) {
    const built = buildRecords(pass.map((item) => item.span));
    for (const record of built.records) records.set((record as { recordId: string }).recordId, record);
    for (const problem of built.problems) problems.add(JSON.stringify(problem));
  }
  return { passes: passes.length, records: [...records.keys()].sort(), problems: [...problems].sort() };
}

function whole(spans: OtlpSpan[]) {
  const built = buildRecords(spans);
  return {
    records: built.records.map((record) => (record as { recordId: string }).recordId).sort(),
    problems: built.problems.map((problem) => JSON.stringify(problem)).sort(),
  };
}

describe("mapping a session in passes", () => {
  it("builds the whole session's records and problems, however few traces a pass holds", () => {
    const spans = mixedSession();
    const expected = whole(spans);
    expect(expected.records.length).toBeGreaterThan(9);
    expect(expected.problems.length).toBeGreaterThan(0);
    for (const maxLocal of [1, 2, 3, 5, 1000]) {
      const { passes, ...got } = inPasses(spans, maxLocal);
      expect(got).toEqual(expected);
      if (maxLocal === 1) expect(passes).toBeGreaterThan(9);
    }
  });

  it("roles: handshake, catalog and list-changed spans are session-wide, a 401 a challenge, the rest local", () => {
    const [initialize, initialized, list] = semconvSession({ sessionId: SESSION });
    expect([initialize, initialized, list].map((item) => spanRoleOf(item as OtlpSpan))).toEqual([
      "session",
      "session",
      "session",
    ]);
    expect(spanRoleOf(semconvCall({ sessionId: SESSION }))).toBe("local");
    const denied = semconvCall({ sessionId: SESSION, status: "error", attributes: { "error.type": "401" } });
    expect(spanRoleOf(denied)).toBe("challenge");
    expect(spanRoleOf(span({ name: "x", start: 0, attributes: {} }))).toBe("local");
  });

  it("a session holding a challenge is one pass: any answered request may resolve it", () => {
    const spans = [
      ...mixedSession(),
      semconvCall({
        sessionId: SESSION,
        traceId: trace(30),
        start: 120,
        end: 130,
        status: "error",
        attributes: { "error.type": "401" },
      }),
    ];
    const { passes, ...got } = inPasses(spans, 1);
    expect(passes).toBe(1);
    expect(got).toEqual(whole(spans));
  });
});
