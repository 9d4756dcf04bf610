import type { QueueEntry, QueueName, TriageItemView, TriageStatus } from "@/lib/dashboard/api-types";
import { Prisma } from "@/lib/generated/prisma/client";
import { type Cursor, encodeCursor } from "@/lib/dashboard/cursor";
import { findChainSummaries } from "./chain-summaries";
import { getPrisma } from "./client";

export type QueueQuery = {
  queue: QueueName;
  status: TriageStatus | "all";
  order: "asc" | "desc";
  cursor?: Cursor;
  limit: number;
};

type QueueRow = {
  chain_id: string;
  observed_at: Date;
  status: string | null;
  owner: string | null;
  acknowledged_at: Date | null;
  acknowledged_by: string | null;
  resolved_at: Date | null;
  resolved_by: string | null;
  updated_at: Date | null;
};

/**
 * A triage queue: every chain whose state — or shadowed state — is the queue's, with its triage item. A chain
 * nobody has touched yet has no item and counts as open. Keyset pagination on (observedAt, chainId).
 */
export async function listQueueChains(query: QueueQuery): Promise<{
  entries: QueueEntry[];
  nextCursor: string | null;
}> {
  const direction = query.order === "desc" ? Prisma.raw("desc") : Prisma.raw("asc");
  const beyond = query.order === "desc" ? Prisma.raw("<") : Prisma.raw(">");
  const cursor = query.cursor ?? null;
  const rows = await getPrisma().$queryRaw<QueueRow[]>`
    select c.chain_id, c.observed_at, t.status, t.owner, t.acknowledged_at, t.acknowledged_by, t.resolved_at,
      t.resolved_by, t.updated_at
    from chains c
    left join triage_items t on t.chain_id = c.chain_id and t.queue = ${query.queue}
    where (c.state = ${query.queue} or c.shadowed_state = ${query.queue})
      and (${query.status}::text = 'all' or coalesce(t.status, 'open') = ${query.status}::text)
      ${cursor ? Prisma.sql`and (c.observed_at, c.chain_id) ${beyond} (${new Date(cursor.observedAt)}::timestamptz, ${cursor.chainId}::text)` : Prisma.empty}
    order by c.observed_at ${direction}, c.chain_id ${direction}
    limit ${query.limit + 1}`;
  const page = rows.slice(0, query.limit);
  const chains = await findChainSummaries(page.map((row) => row.chain_id));
  const rowById = new Map(page.map((row) => [row.chain_id, row]));
  const last = page.at(-1);
  return {
    entries: chains.map((chain) => ({
      chain,
      matchedBy: chain.state === query.queue ? "state" : "shadowed",
      triage: toTriageItem(query.queue, rowById.get(chain.chainId)),
    })),
    nextCursor:
      rows.length > query.limit && last
        ? encodeCursor({ observedAt: last.observed_at.toISOString(), chainId: last.chain_id })
        : null,
  };
}

function toTriageItem(queue: QueueName, row: QueueRow | undefined): TriageItemView {
  return {
    queue,
    status: (row?.status ?? "open") as TriageStatus,
    owner: row?.owner ?? null,
    acknowledgedAt: row?.acknowledged_at?.toISOString() ?? null,
    acknowledgedBy: row?.acknowledged_by ?? null,
    resolvedAt: row?.resolved_at?.toISOString() ?? null,
    resolvedBy: row?.resolved_by ?? null,
    updatedAt: row?.updated_at?.toISOString() ?? null,
  };
}

/** How many chains of the queue are open, acknowledged and resolved (a chain without an item is open). */
export async function countQueueByStatus(queue: QueueName): Promise<Record<TriageStatus, number>> {
  const rows = await getPrisma().$queryRaw<{ status: string; n: number }[]>`
    select coalesce(t.status, 'open') as status, count(*)::int as n
    from chains c
    left join triage_items t on t.chain_id = c.chain_id and t.queue = ${queue}
    where c.state = ${queue} or c.shadowed_state = ${queue}
    group by 1`;
  const counts: Record<TriageStatus, number> = { open: 0, acknowledged: 0, resolved: 0 };
  for (const row of rows) if (row.status in counts) counts[row.status as TriageStatus] = row.n;
  return counts;
}
