import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classify } from "@/lib/classifier";
import { type HealthRecord, validateRecord } from "@/lib/contract";
import { buildRecords, type OtlpSpan } from "@/lib/otlp";
import {
  type ConcurrentCall,
  concurrentCalls,
  concurrentTraceloopCalls,
  EXPECTED_STATE,
  evidenceEvents,
  receiptAttributes,
  TOOL,
} from "@/tests/support/otlp-concurrent";
import { shifted } from "@/tests/support/otlp-classify";
import {
  semconvCall,
  semconvSession,
  span,
  traceloopCall,
  traceloopSession,
} from "@/tests/support/otlp-spans";

// Issue 43 §1: a call reads the receipt span it sits under, never another call's found by the tool's name.

function chains(spans: OtlpSpan[]) {
  const { records, problems } = buildRecords(spans);
  const built = records.map((raw) => {
    const validation = validateRecord(raw);
    if (!validation.ok) throw new Error(`record refused: ${JSON.stringify(validation.issues)}`);
    return { record: validation.record, state: classify(validation.record).state };
  });
  return { chains: built.filter((chain) => chain.record.call !== undefined), problems };
}

const byLabel = (list: { record: HealthRecord; state: string }[]) =>
  Object.fromEntries(list.map((chain) => [chain.record.labels?.call ?? "none", chain]));

function shuffle(spans: OtlpSpan[], random: fc.Stream<number>): OtlpSpan[] {
  return spans
    .map((one) => ({ one, key: random.next().value as number }))
    .sort((a, b) => a.key - b.key)
    .map(({ one }) => one);
}

/** What the server has after each of `exports` exports of `spans`, in order. */
function prefixes(spans: OtlpSpan[], exports: number): OtlpSpan[][] {
  const size = Math.ceil(spans.length / exports);
  const seen: OtlpSpan[][] = [];
  for (let end = size; end < spans.length + size; end += size) seen.push(spans.slice(0, end));
  return seen;
}

const compareNanos = (a: string, b: string) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0);

/** Evidence is read from one receipt span whole: a chain's operation key and its label name the same call. */
function expectOnlyOwnEvidence(list: { record: HealthRecord }[]) {
  for (const { record } of list) {
    const own = record.labels?.call;
    if (own === undefined) expect(record.call?.operationKey).toBeUndefined();
    else expect(record.call?.operationKey).toBe(`op:call-${own}`);
  }
}

function expectEachOwn(
  calls: readonly { n: number; verdict: ConcurrentCall["verdict"] }[],
  spans: OtlpSpan[],
) {
  const { chains: all, problems } = chains(spans);
  expect(problems).toEqual([]);
  expect(all).toHaveLength(calls.length);
  const labelled = byLabel(all);
  for (const call of calls) {
    const chain = labelled[String(call.n)];
    expect(chain?.record.call?.operationKey).toBe(`op:call-${call.n}`);
    expect(chain?.record.call?.effect?.status).toBe(call.verdict);
    expect(chain?.state).toBe(EXPECTED_STATE[call.verdict]);
  }
}

const callArbitrary = fc.record({
  verdict: fc.constantFrom<ConcurrentCall["verdict"]>("committed", "absent"),
  depth: fc.integer({ min: 0, max: 2 }),
});

describe("concurrent calls of one tool, each under its own receipt span", () => {
  it("each chain gets exactly its own evidence, in any span order and any split into exports", () => {
    fc.assert(
      fc.property(
        fc.array(callArbitrary, { minLength: 2, maxLength: 5 }),
        fc.infiniteStream(fc.nat()),
        fc.integer({ min: 1, max: 4 }),
        (drawn, random, exports) => {
          const calls = drawn.map((call, n) => ({ ...call, n }));
          const shuffled = shuffle(concurrentCalls(calls), random);
          // Exports arrive one by one; the server rebuilds from every span stored so far: no chain ever reads
          // another call's evidence on the way, and after the last export each has its own.
          for (const seen of prefixes(shuffled, exports)) expectOnlyOwnEvidence(chains(seen).chains);
          expectEachOwn(calls, shuffled);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("traceloop's shape (receipt spans beside the calls, started in turn): each gets its own, however split", () => {
    fc.assert(
      fc.property(
        fc.array(callArbitrary, { minLength: 2, maxLength: 5 }),
        fc.infiniteStream(fc.nat()),
        fc.integer({ min: 1, max: 4 }),
        (drawn, random, exports) => {
          const calls = drawn.map((call, n) => ({ ...call, n }));
          const spans = concurrentTraceloopCalls(calls);
          // A span processor exports spans as they end: every export's prefix of the end-ordered spans.
          const byEnd = [...spans].sort((a, b) => compareNanos(a.endTimeUnixNano, b.endTimeUnixNano));
          for (const seen of prefixes(byEnd, exports)) expectOnlyOwnEvidence(chains(seen).chains);
          // Whatever order the last export's spans come in, the records are the same.
          expectEachOwn(calls, shuffle(spans, random));
        },
      ),
      { numRuns: 100 },
    );
  });

  it("the issue's case: one committed and passing, one absent → one healthy, one false_success, in either order", () => {
    for (const verdicts of [
      ["committed", "absent"],
      ["absent", "committed"],
    ] as const) {
      const calls = verdicts.map((verdict, n) => ({ n, verdict, depth: 1 }));
      const labelled = byLabel(chains(concurrentCalls(calls)).chains);
      expect(labelled["0"]?.state).toBe(EXPECTED_STATE[verdicts[0]]);
      expect(labelled["1"]?.state).toBe(EXPECTED_STATE[verdicts[1]]);
    }
  });
});

describe("receipt spans that are not the call's ancestors (traceloop)", () => {
  /** Receipt spans around traceloop calls of one tool, which hang off traceloop's session span. */
  function traceloopRun(windows: { receipt: [number, number]; call: number; requestId?: string }[]) {
    const { session, spans } = traceloopSession({ tools: [TOOL] });
    windows.forEach((window, n) => {
      spans.push(
        span({
          name: `agent.step ${TOOL}`,
          kind: "internal",
          start: window.receipt[0],
          end: window.receipt[1],
          attributes: {
            ...receiptAttributes(n),
            ...(window.requestId !== undefined && { "receipt.call.request_id": window.requestId }),
          },
          events: evidenceEvents(n === 0 ? "committed" : "absent", window.receipt[1] - 5),
        }),
        shifted(traceloopCall(session, { tool: TOOL }), window.call - 100),
      );
    });
    return spans;
  }

  it("one after the other: each call reads the one span that encloses it", () => {
    const { chains: all, problems } = chains(
      traceloopRun([
        { receipt: [90, 180], call: 100 },
        { receipt: [200, 300], call: 210 },
      ]),
    );
    expect(problems).toEqual([]);
    const states = all.map((chain) => [chain.record.call?.operationKey, chain.state]).sort();
    expect(states).toEqual([
      ["op:call-0", "healthy"],
      ["op:call-1", "false_success"],
    ]);
  });

  it("at once: no call reads either span (which is which cannot be told), and each call says so", () => {
    const { chains: all, problems } = chains(
      traceloopRun([
        { receipt: [90, 300], call: 100 },
        { receipt: [95, 310], call: 105 },
      ]),
    );
    expect(all).toHaveLength(2);
    for (const chain of all) {
      expect(chain.record.call?.operationKey).toBeUndefined();
      expect(chain.record.call?.effect).toBeUndefined();
      expect(chain.record.labels).toBeUndefined();
      expect(["healthy", "false_success"]).not.toContain(chain.state);
    }
    expect(problems.map((problem) => problem.code)).toEqual(["ambiguous_receipt", "ambiguous_receipt"]);
    expect(problems[0]?.message).toContain(
      "2 span(s) naming the call's tool in receipt.call.tool enclose it",
    );
  });

  it("at once under Promise.all (each receipt span, then its call, in turn): each call reads its own", () => {
    for (const verdicts of [
      ["committed", "absent"],
      ["absent", "committed"],
    ] as const) {
      // Receipt span 0 starts, call 0 starts, receipt span 1 starts, call 1 starts; all end after both started.
      const { session, spans } = traceloopSession({ tools: [TOOL] });
      verdicts.forEach((verdict, n) => {
        spans.push(
          span({
            name: `agent.step ${TOOL}`,
            kind: "internal",
            start: 90 + 10 * n,
            end: 400 + n,
            attributes: receiptAttributes(n),
            events: evidenceEvents(verdict, 350 + n),
          }),
          shifted(traceloopCall(session, { tool: TOOL }), 95 + 10 * n - 100),
        );
      });
      const { chains: all, problems } = chains(spans);
      expect(problems).toEqual([]);
      const labelled = byLabel(all);
      expect(labelled["0"]?.state).toBe(EXPECTED_STATE[verdicts[0]]);
      expect(labelled["1"]?.state).toBe(EXPECTED_STATE[verdicts[1]]);
    }
  });

  it("a concurrent call with no receipt span of its own: the receipted call's span encloses both, so neither reads it", () => {
    const { session, spans } = traceloopSession({ tools: [TOOL] });
    spans.push(
      span({
        name: `agent.step ${TOOL}`,
        kind: "internal",
        start: 90,
        end: 400,
        attributes: receiptAttributes(0),
        events: evidenceEvents("committed", 350),
      }),
      shifted(traceloopCall(session, { tool: TOOL }), -5),
      shifted(traceloopCall(session, { tool: TOOL }), 5),
    );
    const { chains: all, problems } = chains(spans);
    expect(all.map((chain) => chain.record.call?.effect)).toEqual([undefined, undefined]);
    expect(problems.map((problem) => problem.code)).toEqual(["ambiguous_receipt", "ambiguous_receipt"]);
  });
});

describe("request ids and shared receipt spans", () => {
  it("a receipt span naming the call's request id is that call's, even beside another at once", () => {
    const spans = semconvSession();
    for (const n of [0, 1]) {
      // Siblings of the calls (no ancestry), both enclosing both calls: only the request id tells them apart.
      spans.push(
        span({
          name: "agent.step",
          kind: "internal",
          start: 90 + n,
          end: 400,
          attributes: { ...receiptAttributes(n), "receipt.call.request_id": String(10 + n) },
          events: evidenceEvents(n === 0 ? "committed" : "absent", 300),
        }),
        semconvCall({
          tool: TOOL,
          start: 100 + n,
          end: 200,
          attributes: { "jsonrpc.request.id": String(10 + n) },
        }),
      );
    }
    const { chains: all, problems } = chains(spans);
    expect(problems).toEqual([]);
    const labelled = byLabel(all);
    expect(labelled["0"]?.state).toBe("healthy");
    expect(labelled["1"]?.state).toBe("false_success");
    expect(labelled["1"]?.record.call?.requestId).toBe("11");
  });

  it("one receipt span above two calls of its tool: its labels and session facts reach both, its call evidence neither", () => {
    const spans = semconvSession();
    const receipt = span({
      name: "agent.step with a retry",
      kind: "internal",
      start: 90,
      end: 400,
      attributes: { ...receiptAttributes(7), "receipt.server.name": "long-ops" },
      events: evidenceEvents("committed", 300),
    });
    const first = semconvCall({ tool: TOOL, start: 100, end: 150, parentSpanId: receipt.spanId });
    const retry = semconvCall({ tool: TOOL, start: 160, end: 200, parentSpanId: receipt.spanId });
    retry.attributes = { ...retry.attributes, "jsonrpc.request.id": "3" };
    const { chains: all, problems } = chains([...spans, receipt, first, retry]);
    expect(all).toHaveLength(2);
    for (const chain of all) {
      expect(chain.record.labels).toEqual({ call: "7" });
      expect(chain.record.session.server?.name).toBe("long-ops");
      expect(chain.record.call?.operationKey).toBeUndefined();
      expect(chain.record.call?.effect).toBeUndefined();
      expect(chain.state).not.toBe("healthy");
    }
    expect(problems.map((problem) => [problem.spanId, problem.code]).sort()).toEqual(
      [
        [first.spanId, "ambiguous_receipt"],
        [retry.spanId, "ambiguous_receipt"],
      ].sort(),
    );
    // Naming the retry's request id makes the span the retry's whole; the first call keeps the shared facts only.
    receipt.attributes = { ...receipt.attributes, "receipt.call.request_id": "3" };
    const named = chains([...spans, receipt, first, retry]);
    const retried = named.chains.find((chain) => chain.record.call?.requestId === "3");
    const other = named.chains.find((chain) => chain.record.call?.requestId !== "3");
    expect(retried?.state).toBe("healthy");
    expect(other?.record.call?.effect).toBeUndefined();
    expect(other?.record.labels).toEqual({ call: "7" });
    expect(named.problems.map((problem) => problem.spanId)).toEqual([first.spanId]);
  });

  it("a parent naming another tool is not the call's receipt span; the nearest ancestor naming its tool is", () => {
    const spans = semconvSession();
    const outer = span({
      name: "agent.step",
      kind: "internal",
      start: 90,
      end: 400,
      attributes: receiptAttributes(1),
      events: evidenceEvents("committed", 300),
    });
    const inner = span({
      name: "agent.step other",
      kind: "internal",
      start: 95,
      end: 250,
      parentSpanId: outer.spanId,
      attributes: { ...receiptAttributes(2), "receipt.call.tool": "echo" },
      events: evidenceEvents("absent", 240),
    });
    const call = semconvCall({ tool: TOOL, start: 100, end: 200, parentSpanId: inner.spanId });
    const { chains: all, problems } = chains([...spans, outer, inner, call]);
    expect(problems).toEqual([]);
    expect(all[0]?.record.call?.operationKey).toBe("op:call-1");
    expect(all[0]?.state).toBe("healthy");
  });
});
