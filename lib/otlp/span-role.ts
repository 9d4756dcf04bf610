import { mayChallenge } from "./auth-evidence";
import { FOLLOW_UP_METHODS } from "./follow-up-spans";
import { mapSpan } from "./mapped-span";
import { SESSION_METHODS } from "./session-evidence";
import type { OtlpSpan } from "./span";

/**
 * What of its session a (redacted) span can change, so that an export re-assembles only the chains its spans can
 * change. `session`: a handshake, catalog or list-changed span, which every chain of the session that started
 * after it reads; or a progress notification or tasks/* span, which the call it follows reads whatever its trace. `challenge`: a span an auth challenge is read from, which makes every answered request of the
 * session matter to every chain (its resolution). `local`: any other span, read only by the chains of its own
 * trace (the call itself, its parent, an enclosing receipt span, its cancellations).
 */
export type SpanRole = "session" | "challenge" | "local";

export function spanRoleOf(span: OtlpSpan): SpanRole {
  const mapped = mapSpan(span);
  if (mapped === undefined) return "local"; // no usable time: no chain reads it
  if (mayChallenge(mapped)) return "challenge";
  const method = mapped.method?.method ?? "";
  // A progress notification or task request is found by its token or task id, often in another trace than its call.
  return SESSION_METHODS.has(method) || FOLLOW_UP_METHODS.has(method) ? "session" : "local";
}

/** A span with its role, as a session's re-assembly reads it. */
export type RoledSpan = { span: OtlpSpan; role: SpanRole };

/**
 * The passes `buildRecords` can map a session in, each over at most `maxLocal` local spans (whole traces, so one
 * trace larger than that is a pass of its own) plus every span that is not local: each chain is then built from all
 * it reads, and the passes' records together (the session's own record is in each) are the whole session's. A
 * session holding a challenge is one pass: any answered request of the session may resolve it.
 */
export function mappingPasses(spans: readonly RoledSpan[], maxLocal: number): RoledSpan[][] {
  if (spans.some((item) => item.role === "challenge")) return [[...spans]];
  const shared = spans.filter((item) => item.role !== "local");
  const byTrace = new Map<string, RoledSpan[]>();
  for (const item of spans) {
    if (item.role !== "local") continue;
    const list = byTrace.get(item.span.traceId);
    if (list === undefined) byTrace.set(item.span.traceId, [item]);
    else list.push(item);
  }
  const passes: RoledSpan[][] = [];
  let current: RoledSpan[] = [];
  for (const trace of byTrace.values()) {
    if (current.length > 0 && current.length + trace.length > maxLocal) {
      passes.push([...shared, ...current]);
      current = [];
    }
    current.push(...trace);
  }
  passes.push([...shared, ...current]);
  return passes;
}
