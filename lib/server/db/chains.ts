import { type HealthRecord, type State, STATE_SEVERITY_ORDER, STATES, worstState } from "@/lib/contract";
import type { ChainDetail, ChainSummary, SessionView } from "@/lib/dashboard/api-types";
import { countStatePairs, countStatePairsBetween, type StatePairCount } from "./chain-rollup-reads";
import { chainSummaryColumns, toChainSummary } from "./chain-summaries";
import { getPrisma } from "./client";
import { readChainSetAside } from "./set-aside";

// One view of a chain row for the read API and the dashboard alike (lib/dashboard/api-types.ts ChainSummary).
const chainColumns = chainSummaryColumns;
export type ChainView = ChainSummary;

const MAX_RECORDS_IN_DETAIL = 500;

/** One chain with its stored records (redacted JSON as accepted, oldest first) and its state history. */
export async function getChainDetail(chainId: string): Promise<ChainDetail | null> {
  const row = await getPrisma().chain.findUnique({ where: { chainId }, select: chainColumns });
  if (!row) return null;
  const [records, history, setAside] = await Promise.all([
    getPrisma().healthRecord.findMany({
      where: { chainId },
      orderBy: [{ observedAt: "desc" }, { seq: "desc" }],
      take: MAX_RECORDS_IN_DETAIL,
    }),
    getPrisma().chainStateChange.findMany({ where: { chainId }, orderBy: { id: "asc" } }),
    readChainSetAside(chainId),
  ]);
  return {
    chain: toChainSummary(row),
    /** The deadline job could not re-classify the chain's current record: it stays as shown until one arrives. */
    setAside: setAside ? { reason: setAside.reason, at: setAside.setAsideAt.toISOString() } : null,
    records: records.reverse().map((record) => ({
      recordId: record.recordId,
      observedAt: record.observedAt.toISOString(),
      receivedAt: record.receivedAt.toISOString(),
      state: record.state,
      layer: record.layer,
      reasons: record.reasons,
      retrySafe: record.retrySafe,
      shadowed: record.shadowedState ? { state: record.shadowedState, reason: record.shadowedReason } : null,
      current: record.recordId === row.currentRecordId,
      // Only validated records are stored.
      body: record.body as unknown as HealthRecord,
    })),
    history: history.map((change) => ({
      fromState: change.fromState,
      toState: change.toState,
      reason: change.reason,
      at: change.at.toISOString(),
      recordId: change.recordId,
      cause: change.cause,
    })),
  };
}

const rank = (state: string | null) =>
  state === null ? STATE_SEVERITY_ORDER.length : STATE_SEVERITY_ORDER.indexOf(state as State);

/** Every chain of a session, most dangerous first (a shadowed effect in doubt counts as one). */
export async function getSessionChains(sessionId: string): Promise<Omit<SessionView, "calls"> | null> {
  const rows = await getPrisma().chain.findMany({
    where: { sessionId },
    select: chainColumns,
    orderBy: { observedAt: "desc" },
    take: 1000,
  });
  if (rows.length === 0) return null;
  const chains = rows.map(toChainSummary);
  const effectiveRank = (chain: ChainView) =>
    Math.min(rank(chain.state), rank(chain.shadowed?.state ?? null));
  chains.sort((a, b) => effectiveRank(a) - effectiveRank(b));
  return {
    sessionId,
    worstState: worstState(chains.map((chain) => chain.state)),
    worstIncludingShadowed: worstState(
      chains.flatMap((chain) => (chain.shadowed ? [chain.state, chain.shadowed.state] : [chain.state])),
    ),
    chains,
  };
}

/**
 * Chains per current state (and per shadowed state) among chains observed since `since`: from the rollups, and
 * `chains` for the part of an hour before the first whole one (lib/server/db/chain-rollup-reads.ts).
 */
export async function countStates(since?: Date) {
  return { since: since?.toISOString() ?? null, ...foldStatePairs(await countStatePairs(since)) };
}

/** Chains per current state (and shadowed state) among chains observed in [from, to): the previous window. */
export async function countStatesBetween(from: Date, to: Date) {
  return foldStatePairs(await countStatePairsBetween(from, to));
}

function foldStatePairs(pairs: StatePairCount[]) {
  const states = Object.fromEntries(STATES.map((state) => [state, 0])) as Record<State, number>;
  const shadowed = Object.fromEntries(STATES.map((state) => [state, 0])) as Record<State, number>;
  for (const pair of pairs) {
    states[pair.state as State] = (states[pair.state as State] ?? 0) + pair.chains;
    if (pair.shadowedState)
      shadowed[pair.shadowedState as State] = (shadowed[pair.shadowedState as State] ?? 0) + pair.chains;
  }
  return { total: Object.values(states).reduce((a, b) => a + b, 0), states, shadowed };
}

/** The stored chain row as it is, for routing (the route test). */
export async function findChainRow(chainId: string) {
  return getPrisma().chain.findUnique({ where: { chainId } });
}

/** Whether a chain with this id exists: one primary-key probe, for the page's 404. */
export async function chainExists(chainId: string): Promise<boolean> {
  const row = await getPrisma().chain.findUnique({ where: { chainId }, select: { chainId: true } });
  return row !== null;
}

/** Whether any chain belongs to this session: one probe of `chains_session_id_observed_at_idx`, for the page's 404. */
export async function sessionExists(sessionId: string): Promise<boolean> {
  const row = await getPrisma().chain.findFirst({ where: { sessionId }, select: { chainId: true } });
  return row !== null;
}
