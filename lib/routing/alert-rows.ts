import type { Alert, ClassifiedChain, Layer, Severity, State, Transport } from "./types";

// Conversions between what the database holds (chain rows, alert rows) and the routing domain's types.

/** The chain columns routing needs; both a ChainRow being written and a stored Chain have them. */
export type ChainColumns = {
  chainId: string;
  sessionId: string;
  state: string;
  layer: string;
  reasons: string[];
  retrySafe: boolean | null;
  shadowedState: string | null;
  shadowedReason: string | null;
  serverName: string | null;
  clientName: string;
  tool: string | null;
  transport: string;
  labels: unknown;
};

export function classifiedChainOf(row: ChainColumns): ClassifiedChain {
  return {
    chainId: row.chainId,
    sessionId: row.sessionId,
    state: row.state as State,
    layer: row.layer as Layer,
    reasons: row.reasons,
    ...(row.retrySafe !== null ? { retrySafe: row.retrySafe } : {}),
    ...(row.shadowedState
      ? { shadowed: { state: row.shadowedState as State, reason: row.shadowedReason ?? "" } }
      : {}),
    ...(row.serverName !== null ? { server: row.serverName } : {}),
    client: row.clientName,
    ...(row.tool !== null ? { tool: row.tool } : {}),
    transport: row.transport as Transport,
    labels: (row.labels ?? {}) as Record<string, string>,
  };
}

/** An alert row as stored (the columns the routing decision reads). */
export type StoredAlert = {
  fingerprint: string;
  chainId: string;
  sessionId: string;
  state: string;
  severity: string;
  status: string;
  labels: unknown;
  reasons: string[];
  retrySafe: boolean | null;
  recordId: string | null;
  confirmedAt: Date | null;
  resolvedBy: string | null;
};

/** A stored alert as a notification group reads its members: with when it started and ended. */
export type MemberAlert = StoredAlert & { startsAt: Date; endsAt: Date | null };

export function alertOf(row: StoredAlert): Alert {
  const labels = (row.labels ?? {}) as Record<string, string>;
  return {
    fingerprint: row.fingerprint,
    chainId: row.chainId,
    sessionId: row.sessionId,
    state: row.state as State,
    layer: (labels.layer ?? "outcome") as Layer,
    reasons: row.reasons,
    severity: row.severity as Severity,
    ...(row.retrySafe !== null ? { retrySafe: row.retrySafe } : {}),
    ...(labels.shadowed_by ? { shadowedBy: labels.shadowed_by as State } : {}),
    labels,
  };
}

export const sameLabels = (a: unknown, b: unknown): boolean => {
  const left = (a ?? {}) as Record<string, string>;
  const right = (b ?? {}) as Record<string, string>;
  const keys = Object.keys(left);
  return keys.length === Object.keys(right).length && keys.every((key) => left[key] === right[key]);
};
