import { STATES, type State } from "@/lib/contract";
import type { ChainSummary } from "@/lib/dashboard/api-types";
import { Prisma } from "@/lib/generated/prisma/client";
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

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** The same columns for raw SQL over `chains c`, named as Prisma names them, so rows go through toChainSummary. */
export const chainSummarySql = Prisma.raw(
  Object.keys(chainSummaryColumns)
    .map((name) => `c.${snakeCase(name)} as "${name}"`)
    .join(", "),
);

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

const QUIET_STATES: readonly State[] = ["healthy", "working"];
const ATTENTION_STATES = STATES.filter((state) => !QUIET_STATES.includes(state));

/**
 * The newest chains that need a person (neither healthy nor in flight), for the overview. One short read of
 * `(state, observed_at)` per such state, merged: the cost is (states × limit) index entries however many quiet
 * chains there are (walking the observed_at index instead passed every quiet chain newer than the last match).
 */
export async function listNewestNeedingAttention(limit: number, since?: Date): Promise<ChainSummary[]> {
  const rows = await getPrisma().$queryRaw<{ chain_id: string }[]>`
    select newest.chain_id
    from unnest(${ATTENTION_STATES}::text[]) as wanted(state)
    cross join lateral (
      select c.chain_id, c.observed_at from chains c
      where c.state = wanted.state ${since ? Prisma.sql`and c.observed_at >= ${since}` : Prisma.empty}
      order by c.observed_at desc, c.chain_id desc
      limit ${limit}
    ) newest
    order by newest.observed_at desc, newest.chain_id desc
    limit ${limit}`;
  return findChainSummaries(rows.map((row) => row.chain_id));
}
