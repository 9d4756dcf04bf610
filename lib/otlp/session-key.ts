import { SEMCONV } from "./attribute-names";
import { hashSessionId } from "./hashing";
import type { OtlpSpan } from "./span";
import { stringAttr } from "./span-values";

/**
 * Which session a span belongs to, so that all spans to be assembled together can be found: its
 * `mcp.session.id` (hashed, as `redactSpan` stores it, so raw and redacted spans agree), else its trace.
 * Spans of one session that carry `mcp.session.id` on some spans only are grouped apart: an instrumentation
 * sets it on every span of the session, or on none (then one trace must hold the session).
 */
export function sessionKeyOf(span: OtlpSpan): string {
  const sessionId = stringAttr(span.attributes, SEMCONV.sessionId);
  return sessionId !== undefined && sessionId !== ""
    ? `mcp:${hashSessionId(sessionId)}`
    : `trace:${span.traceId}`;
}
