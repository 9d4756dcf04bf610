import type { HealthRecord } from "../contract/record";
import type { Layer } from "../contract/states";

/**
 * Contract v1.2: a layer the reporter did not see, in words — what was not seen, and what would make it visible.
 * Neither a failure nor a pass: a gap in coverage.
 */
export type UnseenLayer = { what: string; toSee: string };

const UNSEEN_HANDSHAKE: UnseenLayer = {
  what: "The reporter did not see this session's handshake (initialize, notifications/initialized or server/discover), so the version, handshake and capability rules were not checked.",
  toSee:
    "To make it visible, export the session's initialize span in the same trace as its calls, or put the session id (mcp.session.id) on it; a collector sees it when it wraps the client before the client connects.",
};

const UNSEEN_CATALOG: UnseenLayer = {
  what: "The reporter did not see this session's tools/list traffic, so the catalog rules (read, complete, changed, expired) were not checked.",
  toSee:
    "To make it visible, export the session's tools/list span (in the same trace, or with the session id on it), or let the collector wrap the client before it lists tools.",
};

/** The words for `layer` when the record says its reporter did not see it; undefined for a seen layer. */
export function unseenLayer(record: HealthRecord, layer: Layer): UnseenLayer | undefined {
  if (layer === "session" && record.observed?.handshake === false) return UNSEEN_HANDSHAKE;
  if (layer === "catalog" && record.observed?.catalog === false) return UNSEEN_CATALOG;
  return undefined;
}

/** Whether the handshake evidence of `record` was seen (absent or null `observed` fields mean seen). */
export const handshakeSeen = (record: HealthRecord) => record.observed?.handshake !== false;
