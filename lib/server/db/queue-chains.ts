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
  /** Only the items assigned to this user. */
  assigneeUserId?: string;
};

type QueueRow = {
  chain_id: string;
  observed_at: Date;
  in_queue: boolean;
  status: string | null;
  former_owner: string | null;
  assignee_id: string | null;
  assignee_username: string | null;
  assignee_display_name: string | null;
  acknowledged_at: Date | null;
  acknowledged_by: string | null;
  resolved_at: Date | null;
  resolved_by: string | null;
  updated_at: Date | null;
};

/**
 * A triage queue: every chain whose state — or shadowed state — is the queue's, with its triage item (a chain
 * nobody has touched yet has no item and counts as open), and every chain whose item here is resolved although
 * the chain has left the queue's state since (reconciliation settles the item and re-classifies the chain).
 * Two branches, each on its own index (chains by state, triage_items by queue and status), so the plain
 * "in the queue" read stays what it was. Keyset pagination on (observedAt, chainId).
 */
export async function listQueueChains(query: QueueQuery): Promise<{
  entries: QueueEntry[];
  nextCursor: string | null;
}> {
  const direction = query.order === "desc" ? Prisma.raw("desc") : Prisma.raw("asc");
  const beyond = query.order === "desc" ? Prisma.raw("<") : Prisma.raw(">");
  const cursor = query.cursor ?? null;
  const afterCursor = cursor
    ? Prisma.sql`and (c.observed_at, c.chain_id) ${beyond} (${new Date(cursor.observedAt)}::timestamptz, ${cursor.chainId}::text)`
    : Prisma.empty;
  const includesLeft = query.status === "resolved" || query.status === "all";
  const columns = Prisma.sql`c.chain_id, c.observed_at, t.status, t.former_owner, t.acknowledged_at,
      t.acknowledged_by, t.resolved_at, t.resolved_by, t.updated_at, u.id::text as assignee_id,
      u.username as assignee_username, u.display_name as assignee_display_name`;
  const assignee = query.assigneeUserId;
  // The chains that left the queue with their item resolved: only that user's, with an assignee.
  const assignedTo = assignee ? Prisma.sql`and t.assignee_user_id = ${assignee}::uuid` : Prisma.empty;
  const withAssignee = Prisma.sql`left join users u on u.id = t.assignee_user_id`;
  // Open (or all): the queue's chains by time, each with its item if any — items that are not open are few, so the
  // walk stops within a page. Acknowledged or resolved: only chains with such an item can match, so the read starts
  // from triage_items (by queue and status), never walking the queue's chains in search of them.
  // With an assignee, every row has an item: the read starts from that user's items (by assignee), whatever the
  // status, instead of walking the queue's chains in search of them.
  // A page of the chains matching `match` before their items are joined: "no item here that is not open" as an
  // anti-join keeps the walk down (state, observed_at) ordered and cut at a page, where a left join filtered on the
  // item's status made the planner collect and sort every chain of the state.
  const notSettled =
    query.status === "all"
      ? Prisma.empty
      : Prisma.sql`and not exists (select 1 from triage_items x
          where x.chain_id = c.chain_id and x.queue = ${query.queue} and x.status <> 'open')`;
  const openChains = (match: Prisma.Sql) => Prisma.sql`select ${columns}, true as in_queue
        from (select c.chain_id, c.observed_at from chains c
          where ${match} ${notSettled} ${afterCursor}
          order by c.observed_at ${direction}, c.chain_id ${direction} limit ${query.limit + 1}) c
        left join triage_items t on t.chain_id = c.chain_id and t.queue = ${query.queue}
        ${withAssignee}`;
  const inQueue = assignee
    ? Prisma.sql`select ${columns}, true as in_queue
        from triage_items t
        join chains c on c.chain_id = t.chain_id
        ${withAssignee}
        where t.assignee_user_id = ${assignee}::uuid and t.queue = ${query.queue}
          and (${query.status}::text = 'all' or t.status = ${query.status})
          and (c.state = ${query.queue} or c.shadowed_state = ${query.queue})
          ${afterCursor}`
    : query.status === "open" || query.status === "all"
      ? // Chains in the state, then chains shadowed by it, each walked in order down its own (state, observed_at)
        // index and cut to a page before they meet: one `state or shadowed_state` condition would collect every
        // chain of the queue in a bitmap and sort them all for one page.
        Prisma.sql`select * from (
        ${openChains(Prisma.sql`c.state = ${query.queue}`)}
        union all
        ${openChains(Prisma.sql`c.shadowed_state = ${query.queue} and c.state <> ${query.queue}`)}
        ) c`
      : Prisma.sql`select ${columns}, true as in_queue
        from triage_items t
        join chains c on c.chain_id = t.chain_id
        ${withAssignee}
        where t.queue = ${query.queue} and t.status = ${query.status}
          and (c.state = ${query.queue} or c.shadowed_state = ${query.queue})
          ${afterCursor}`;
  const rows = await getPrisma().$queryRaw<QueueRow[]>`
    (${inQueue}
    order by c.observed_at ${direction}, c.chain_id ${direction}
    limit ${query.limit + 1})
    union all
    (select ${columns}, false as in_queue
    from triage_items t
    join chains c on c.chain_id = t.chain_id
    ${withAssignee}
    where ${includesLeft}::boolean and t.queue = ${query.queue} and t.status = 'resolved'
      and c.state <> ${query.queue} and c.shadowed_state is distinct from ${query.queue}
      ${assignedTo} ${afterCursor}
    order by c.observed_at ${direction}, c.chain_id ${direction}
    limit ${query.limit + 1})
    order by observed_at ${direction}, chain_id ${direction}
    limit ${query.limit + 1}`;
  const page = rows.slice(0, query.limit);
  const chains = await findChainSummaries(page.map((row) => row.chain_id));
  const rowById = new Map(page.map((row) => [row.chain_id, row]));
  const last = page.at(-1);
  return {
    entries: chains.map((chain) => ({
      chain,
      matchedBy: matchedBy(query.queue, chain.state, rowById.get(chain.chainId)),
      triage: toTriageItem(query.queue, rowById.get(chain.chainId)),
    })),
    nextCursor:
      rows.length > query.limit && last
        ? encodeCursor({ observedAt: last.observed_at.toISOString(), chainId: last.chain_id })
        : null,
  };
}

function matchedBy(queue: QueueName, state: string, row: QueueRow | undefined): QueueEntry["matchedBy"] {
  if (row && !row.in_queue) return "left_queue";
  return state === queue ? "state" : "shadowed";
}

function toTriageItem(queue: QueueName, row: QueueRow | undefined): TriageItemView {
  return {
    queue,
    status: (row?.status ?? "open") as TriageStatus,
    assignee:
      row?.assignee_id && row.assignee_username
        ? { id: row.assignee_id, username: row.assignee_username, displayName: row.assignee_display_name }
        : null,
    formerOwner: row?.former_owner ?? null,
    acknowledgedAt: row?.acknowledged_at?.toISOString() ?? null,
    acknowledgedBy: row?.acknowledged_by ?? null,
    resolvedAt: row?.resolved_at?.toISOString() ?? null,
    resolvedBy: row?.resolved_by ?? null,
    updatedAt: row?.updated_at?.toISOString() ?? null,
  };
}

/**
 * How many chains of the queue are open, acknowledged and resolved (a chain without an item is open); resolved
 * counts the chains that left the queue's state with their item resolved too, as the list shows them. The chains in
 * the queue's state (current or shadowed) come from the rollups; the items that are not open (few: people set them)
 * are joined to their chains and taken off the open count. One statement, one snapshot.
 */
export async function countQueueByStatus(queue: QueueName): Promise<Record<TriageStatus, number>> {
  const rows = await getPrisma().$queryRaw<
    { in_queue: number; acknowledged: number; resolved_in_queue: number; resolved_left: number }[]
  >`
    with items as (
      select t.status, (c.state = ${queue} or c.shadowed_state is not distinct from ${queue}) as in_queue
      from triage_items t
      join chains c on c.chain_id = t.chain_id
      where t.queue = ${queue} and t.status in ('acknowledged', 'resolved')
    )
    select
      (select coalesce(sum(chains), 0)::int from chain_state_rollups_live
        where state = ${queue} or shadowed_state = ${queue}) as in_queue,
      (select count(*)::int from items where status = 'acknowledged' and in_queue) as acknowledged,
      (select count(*)::int from items where status = 'resolved' and in_queue) as resolved_in_queue,
      (select count(*)::int from items where status = 'resolved' and not in_queue) as resolved_left`;
  const row = rows[0] ?? { in_queue: 0, acknowledged: 0, resolved_in_queue: 0, resolved_left: 0 };
  return {
    open: row.in_queue - row.acknowledged - row.resolved_in_queue,
    acknowledged: row.acknowledged,
    resolved: row.resolved_in_queue + row.resolved_left,
  };
}
