import { type HealthRecord, type State, STATE_SEVERITY_ORDER, STATES, worstState } from "@/lib/contract";
import type { Prisma } from "@/lib/generated/prisma/client";
import { type Cursor, encodeCursor } from "@/lib/dashboard/cursor";
import type { ChainDetail, ChainPage, ChainSummary, SessionView } from "@/lib/dashboard/api-types";
import { chainSummaryColumns, toChainSummary } from "./chain-summaries";
import { getPrisma } from "./client";
import { readChainSetAside } from "./set-aside";

// One view of a chain row for the read API and the dashboard alike (lib/dashboard/api-types.ts ChainSummary).
const chainColumns = chainSummaryColumns;
export type ChainView = ChainSummary;

/** A page of chains, newest first (or oldest first), with keyset pagination on (observedAt, chainId). */
/** A chain list's filters and page, as the read endpoint parsed them (`ZChainQuery`). */
export type ChainListQuery = {
  state?: string;
  server?: string;
  client?: string;
  tool?: string;
  session?: string;
  /** A reason code among the chain's reasons (a problem's deciding reason opens its chains with it). */
  reason?: string;
  /** `key:value` pairs, all of which must match. */
  label: string[];
  since?: string;
  until?: string;
  order: "asc" | "desc";
  cursor?: Cursor;
  limit: number;
};

export async function listChains(query: ChainListQuery): Promise<ChainPage> {
  const where: Prisma.ChainWhereInput[] = [];
  if (query.state) where.push({ OR: [{ state: query.state }, { shadowedState: query.state }] });
  if (query.server) where.push({ serverName: query.server });
  if (query.client) where.push({ clientName: query.client });
  if (query.tool) where.push({ tool: query.tool });
  if (query.session) where.push({ sessionId: query.session });
  if (query.reason) where.push({ reasons: { has: query.reason } });
  for (const label of query.label) {
    const split = label.indexOf(":");
    where.push({ labels: { path: [label.slice(0, split)], equals: label.slice(split + 1) } });
  }
  if (query.since) where.push({ observedAt: { gte: new Date(query.since) } });
  if (query.until) where.push({ observedAt: { lte: new Date(query.until) } });
  const before = query.order === "desc" ? "lt" : "gt";
  if (query.cursor) {
    const cursor = query.cursor;
    const at = new Date(cursor.observedAt);
    where.push({
      OR: [{ observedAt: { [before]: at } }, { observedAt: at, chainId: { [before]: cursor.chainId } }],
    });
  }
  const rows = await getPrisma().chain.findMany({
    where: { AND: where },
    orderBy: [{ observedAt: query.order }, { chainId: query.order }],
    take: query.limit + 1,
    select: chainColumns,
  });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    chains: page.map((row) => ({
      ...toChainSummary(row),
      matchedBy: query.state && row.state !== query.state ? ("shadowed" as const) : ("state" as const),
    })),
    nextCursor:
      rows.length > query.limit && last
        ? encodeCursor({ observedAt: last.observedAt.toISOString(), chainId: last.chainId })
        : null,
  };
}

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
export async function getSessionChains(sessionId: string): Promise<SessionView | null> {
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

/** Chains per current state (and per shadowed state) among chains observed since `since`. */
export async function countStates(since?: Date) {
  const where = since ? { observedAt: { gte: since } } : {};
  const [byState, byShadowed] = await Promise.all([
    getPrisma().chain.groupBy({ by: ["state"], where, _count: { _all: true } }),
    getPrisma().chain.groupBy({ by: ["shadowedState"], where, _count: { _all: true } }),
  ]);
  const states = Object.fromEntries(STATES.map((state) => [state, 0])) as Record<State, number>;
  for (const row of byState) states[row.state as State] = row._count._all;
  const shadowed = Object.fromEntries(STATES.map((state) => [state, 0])) as Record<State, number>;
  for (const row of byShadowed) if (row.shadowedState) shadowed[row.shadowedState as State] = row._count._all;
  return {
    since: since?.toISOString() ?? null,
    total: Object.values(states).reduce((a, b) => a + b, 0),
    states,
    shadowed,
  };
}

/** The stored chain row as it is, for routing (the route test). */
export async function findChainRow(chainId: string) {
  return getPrisma().chain.findUnique({ where: { chainId } });
}
