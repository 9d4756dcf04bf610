import type { State } from "@/lib/contract";
import type { ChainSummary } from "@/lib/dashboard/api-types";
import type { Prisma } from "@/lib/generated/prisma/client";
import { getPrisma } from "./client";

// The dashboard's view of a chain row. Kept beside the dashboard queries (not in chains.ts, which belongs to the
// read API) and checked against the shared ChainSummary type the components use.
export const chainSummaryColumns = {
  chainId: true,
  sessionId: true,
  state: true,
  layer: true,
  reasons: true,
  retrySafe: true,
  evidence: true,
  shadowedState: true,
  shadowedReason: true,
  nextCheckAt: true,
  observedAt: true,
  evaluatedAt: true,
  firstSeenAt: true,
  serverName: true,
  serverVersion: true,
  clientName: true,
  clientVersion: true,
  transport: true,
  tool: true,
  labels: true,
  recordCount: true,
  currentRecordId: true,
} satisfies Prisma.ChainSelect;

type Row = Prisma.ChainGetPayload<{ select: typeof chainSummaryColumns }>;

export function toChainSummary(row: Row): ChainSummary {
  return {
    chainId: row.chainId,
    sessionId: row.sessionId,
    state: row.state as State,
    layer: row.layer,
    reasons: row.reasons,
    retrySafe: row.retrySafe,
    evidence: row.evidence,
    shadowed: row.shadowedState
      ? { state: row.shadowedState as State, reason: row.shadowedReason ?? "" }
      : null,
    nextCheckAt: row.nextCheckAt?.toISOString() ?? null,
    observedAt: row.observedAt.toISOString(),
    evaluatedAt: row.evaluatedAt.toISOString(),
    firstSeenAt: row.firstSeenAt.toISOString(),
    server: row.serverName ? { name: row.serverName, version: row.serverVersion } : null,
    client: { name: row.clientName, version: row.clientVersion },
    transport: row.transport,
    tool: row.tool,
    labels: row.labels as Record<string, string>,
    recordCount: row.recordCount,
    currentRecordId: row.currentRecordId,
  };
}

/** Chain summaries for `chainIds`, in the order given (ids without a chain are skipped). */
export async function findChainSummaries(chainIds: string[]): Promise<ChainSummary[]> {
  if (chainIds.length === 0) return [];
  const rows = await getPrisma().chain.findMany({
    where: { chainId: { in: chainIds } },
    select: chainSummaryColumns,
  });
  const byId = new Map(rows.map((row) => [row.chainId, toChainSummary(row)]));
  return chainIds.flatMap((id) => byId.get(id) ?? []);
}

const QUIET_STATES: State[] = ["healthy", "working"];

/**
 * The newest chains that need a person (neither healthy nor in flight), for the overview. Walks the
 * observed_at index backwards, so it stays fast however many chains there are.
 */
export async function listNewestNeedingAttention(limit: number, since?: Date): Promise<ChainSummary[]> {
  const rows = await getPrisma().chain.findMany({
    where: { state: { notIn: QUIET_STATES }, ...(since ? { observedAt: { gte: since } } : {}) },
    orderBy: [{ observedAt: "desc" }, { chainId: "desc" }],
    take: limit,
    select: chainSummaryColumns,
  });
  return rows.map(toChainSummary);
}
