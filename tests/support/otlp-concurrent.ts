/**
 * Concurrent calls of one tool, each under the agent's own receipt span (issue 43 §1): the shapes the OTLP mapping
 * must tell apart by span structure, never by the tool's name. Times are milliseconds after T0 (otlp-spans).
 */
import type { OtlpAttributes, OtlpSpan } from "@/lib/otlp";
import {
  type SpanOptions,
  semconvCall,
  semconvSession,
  span,
  spanId,
  traceloopCall,
  traceloopSession,
} from "./otlp-spans";

export const TOOL = "trigger-long-running-operation";

/** What the agent found after call `n`: committed and passing (healthy), or absent (false_success). */
export type Verdict = "committed" | "absent";

export type ConcurrentCall = {
  n: number;
  verdict: Verdict;
  /** Spans between the receipt span and the call span (an HTTP or retry wrapper without receipt.*). */
  depth: number;
};

/** The state the classifier gives call `n` when it reads its own evidence. */
export const EXPECTED_STATE: Record<Verdict, string> = { committed: "healthy", absent: "false_success" };

/**
 * A session (initialize, tools/list) and, in the same trace, each call under its own receipt span, all started
 * before any ends (Promise.all): receipt spans start at 100 + n, calls at 110 + n, calls end at 200 + n, the checks
 * follow at 300 + n. Each receipt span names its operation key and label `call: n` and carries its verdict.
 */
export function concurrentCalls(calls: readonly ConcurrentCall[], traceId?: string): OtlpSpan[] {
  const spans: OtlpSpan[] = semconvSession({ traceId });
  for (const { n, verdict, depth } of calls) {
    const receipt = span({
      traceId,
      name: `agent.step ${TOOL}`,
      kind: "internal",
      start: 100 + n,
      end: 400 + n,
      attributes: receiptAttributes(n),
      events: evidenceEvents(verdict, 300 + n),
    });
    spans.push(receipt);
    let parent = receipt.spanId;
    for (let level = 0; level < depth; level++) {
      const wrapper = span({
        traceId,
        name: `wrapper ${level}`,
        kind: "internal",
        start: 105 + n,
        end: 250 + n,
      });
      wrapper.parentSpanId = parent;
      spans.push(wrapper);
      parent = wrapper.spanId;
    }
    spans.push(
      semconvCall({
        traceId,
        tool: TOOL,
        start: 110 + n,
        end: 200 + n,
        parentSpanId: parent,
        spanId: spanId(),
        attributes: { "jsonrpc.request.id": String(10 + n) },
      }),
    );
  }
  return spans;
}

/**
 * The same calls as traceloop emits them (issue 43 §1's own run): call spans under traceloop's session span, the
 * agent's receipt spans their siblings, started in turn as `Promise.all` starts them (receipt span n at 100 + 10n,
 * its call at 105 + 10n), all ending after every call started.
 */
export function concurrentTraceloopCalls(calls: readonly Omit<ConcurrentCall, "depth">[]): OtlpSpan[] {
  const { session, spans } = traceloopSession({ tools: [TOOL] });
  for (const { n, verdict } of calls) {
    spans.push(
      span({
        name: `agent.step ${TOOL}`,
        kind: "internal",
        start: 100 + 10 * n,
        end: 400 + n,
        attributes: receiptAttributes(n),
        events: evidenceEvents(verdict, 300 + n),
      }),
    );
    const call = traceloopCall(session, { tool: TOOL });
    const shift = (nanos: string) => (BigInt(nanos) + BigInt(5 + 10 * n) * 1_000_000n).toString();
    spans.push({
      ...call,
      startTimeUnixNano: shift(call.startTimeUnixNano),
      endTimeUnixNano: shift(call.endTimeUnixNano),
    });
  }
  return spans;
}

export function receiptAttributes(n: number): OtlpAttributes {
  return {
    "receipt.call.tool": TOOL,
    "receipt.call.side_effect": "write",
    "receipt.call.operation_key": `op:call-${n}`,
    "receipt.call.expected_verifier": "db_row",
    "receipt.label.call": String(n),
  };
}

export function evidenceEvents(verdict: Verdict, at: number): NonNullable<SpanOptions["events"]> {
  if (verdict === "absent") {
    return [{ name: "receipt.effect", at, attributes: { "receipt.effect.status": "absent" } }];
  }
  return [
    { name: "receipt.effect", at, attributes: { "receipt.effect.status": "committed" } },
    {
      name: "receipt.outcome",
      at: at + 1,
      attributes: { "receipt.outcome.verifier": "db_row", "receipt.outcome.verdict": "pass" },
    },
  ];
}

const KINDS = ["unspecified", "internal", "server", "client", "producer", "consumer"];
const STATUS_CODES = ["unset", "ok", "error"];

function anyValue(value: OtlpAttributes[string]): unknown {
  if (Array.isArray(value)) return { arrayValue: { values: value.map(anyValue) } };
  if (typeof value === "boolean") return { boolValue: value };
  if (typeof value === "number") {
    return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  }
  return { stringValue: value };
}

const keyValues = (attributes: OtlpAttributes) =>
  Object.entries(attributes).map(([key, value]) => ({ key, value: anyValue(value) }));

/** An OTLP/JSON ExportTraceServiceRequest of normalised spans, each under its own resource and scope. */
export function otlpJson(spans: readonly OtlpSpan[]): string {
  return JSON.stringify({
    resourceSpans: spans.map((one) => ({
      resource: { attributes: keyValues(one.resource) },
      scopeSpans: [
        {
          scope: one.scope,
          spans: [
            {
              traceId: one.traceId,
              spanId: one.spanId,
              ...(one.parentSpanId !== undefined && { parentSpanId: one.parentSpanId }),
              name: one.name,
              kind: KINDS.indexOf(one.kind),
              startTimeUnixNano: one.startTimeUnixNano,
              endTimeUnixNano: one.endTimeUnixNano,
              status: { code: STATUS_CODES.indexOf(one.status.code) },
              attributes: keyValues(one.attributes),
              events: one.events.map((event) => ({
                name: event.name,
                timeUnixNano: event.timeUnixNano,
                attributes: keyValues(event.attributes),
              })),
            },
          ],
        },
      ],
    })),
  });
}
