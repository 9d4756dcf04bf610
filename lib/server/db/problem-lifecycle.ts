import type { QueueName } from "@/lib/dashboard/api-types";
import { Prisma } from "@/lib/generated/prisma/client";
import type { AlertSnapshot, ItemSnapshot, LifecycleChanges } from "@/lib/problems/lifecycle";
import type { ProblemTuple } from "@/lib/problems/types";
import { appendOutboxEvents } from "./routing-alerts";
import { prismaSql } from "./sql";

// What hangs below a problem (its chains' items in the problem's queue and their alerts of its state), and the
// writes of a resolve and of its undo. Callers lock the chains first (lockChains), as every writer of items and alerts.

type Tx = Prisma.TransactionClient;

export type ItemBelow = { chainId: string; queue: QueueName; before: ItemSnapshot | null };
export type AlertBelow = { fingerprint: string; chainId: string; before: AlertSnapshot };

const iso = (value: Date | null) => value?.toISOString() ?? null;

/** A problem's chains: its tuple on the current state (a missing server, tool or reason is null, as the index has it). */
const chainsOf = (tuple: ProblemTuple) => Prisma.sql`c.state = ${tuple.state}
  and ${tuple.server === null ? Prisma.sql`c.server_name is null` : Prisma.sql`c.server_name = ${tuple.server}`}
  and ${tuple.tool === null ? Prisma.sql`c.tool is null` : Prisma.sql`c.tool = ${tuple.tool}`}
  and ${tuple.reason === null ? Prisma.sql`c.reasons[1] is null` : Prisma.sql`c.reasons[1] = ${tuple.reason}`}`;

const QUEUE_STATES: readonly string[] = ["false_success", "effect_unknown"];

/**
 * What resolving the problem would also resolve, at most `limit` of each: the chains in its queue whose item is not
 * resolved (an untouched chain has none yet, and is open in the queue all the same), and its chains' firing alerts of
 * the problem's state. `onlyChains`: under the locks, keep to the chains locked.
 */
export async function readBelowProblem(
  db: Tx,
  tuple: ProblemTuple,
  limit: number,
  onlyChains?: readonly string[],
): Promise<{ items: ItemBelow[]; alerts: AlertBelow[] }> {
  const locked = onlyChains ? Prisma.sql`and c.chain_id = any(${[...onlyChains]}::text[])` : Prisma.empty;
  const items = QUEUE_STATES.includes(tuple.state)
    ? await db.$queryRaw<
        {
          chain_id: string;
          status: string | null;
          acknowledged_at: Date | null;
          acknowledged_by: string | null;
          resolved_at: Date | null;
          resolved_by: string | null;
        }[]
      >`select c.chain_id, t.status, t.acknowledged_at, t.acknowledged_by, t.resolved_at, t.resolved_by
        from chains c left join triage_items t on t.chain_id = c.chain_id and t.queue = ${tuple.state}
        where ${chainsOf(tuple)} ${locked} and (t.status is null or t.status <> 'resolved')
        order by c.chain_id limit ${limit}`
    : [];
  const alerts = await db.$queryRaw<
    {
      fingerprint: string;
      chain_id: string;
      status: string;
      ends_at: Date | null;
      resolved_by: string | null;
    }[]
  >`select a.fingerprint, a.chain_id, a.status, a.ends_at, a.resolved_by
    from alerts a join chains c on c.chain_id = a.chain_id
    where a.status = 'firing' and a.state = ${tuple.state} and ${chainsOf(tuple)} ${locked}
    order by a.fingerprint limit ${limit}`;
  return {
    items: items.map((row) => ({
      chainId: row.chain_id,
      queue: tuple.state as QueueName,
      before:
        row.status === null
          ? null
          : {
              status: row.status,
              acknowledgedAt: iso(row.acknowledged_at),
              acknowledgedBy: row.acknowledged_by,
              resolvedAt: iso(row.resolved_at),
              resolvedBy: row.resolved_by,
            },
    })),
    alerts: alerts.map((row) => ({
      fingerprint: row.fingerprint,
      chainId: row.chain_id,
      before: { status: row.status, endsAt: iso(row.ends_at), resolvedBy: row.resolved_by },
    })),
  };
}

/** The chain's firing alerts in these states (a triage item's resolve offers its queue state's). */
export async function readFiringAlertsOfChain(
  db: Tx,
  chainId: string,
  states: string[],
): Promise<AlertBelow[]> {
  const rows = await db.$queryRaw<
    { fingerprint: string; ends_at: Date | null; resolved_by: string | null }[]
  >`
    select fingerprint, ends_at, resolved_by from alerts
    where chain_id = ${chainId} and status = 'firing' and state = any(${states}::text[]) order by fingerprint`;
  return rows.map((row) => ({
    fingerprint: row.fingerprint,
    chainId,
    before: { status: "firing", endsAt: iso(row.ends_at), resolvedBy: row.resolved_by },
  }));
}

/** Marks these items resolved by `actor` at `now`: an untouched chain gets its item, resolved. */
export async function resolveItemsBelow(db: Tx, items: readonly ItemBelow[], actor: string, now: Date) {
  if (items.length === 0) return;
  const chainIds = items.map((item) => item.chainId);
  const queues = items.map((item) => item.queue);
  await db.$executeRaw`
    insert into triage_items (chain_id, queue, status, resolved_at, resolved_by, created_at, updated_at)
    select chain_id, queue, 'resolved', ${now}, ${actor}, ${now}, ${now}
    from unnest(${chainIds}::text[], ${queues}::text[]) as u(chain_id, queue)
    on conflict (chain_id, queue) do update set status = 'resolved', resolved_at = excluded.resolved_at,
      resolved_by = excluded.resolved_by, updated_at = excluded.updated_at`;
  await db.triageEvent.createMany({
    data: items.map((item) => ({
      chainId: item.chainId,
      queue: item.queue,
      actor,
      action: "resolve",
      note: null,
      at: now,
      data: { from: item.before?.status ?? "open", to: "resolved", via: "problem" },
    })),
  });
}

/**
 * Resolves these firing alerts by an operator (`mark`, as the alert list's resolve does: the same evidence does not
 * raise them again, a newer record does), with their outbox events, so receivers get "resolved".
 */
export async function resolveAlertsBelow(db: Tx, alerts: readonly AlertBelow[], mark: string, now: Date) {
  if (alerts.length === 0) return;
  await db.$executeRaw`update alerts set status = 'resolved', ends_at = ${now}, updated_at = ${now},
      resolved_by = ${mark}
    where fingerprint = any(${alerts.map((alert) => alert.fingerprint)}::text[]) and status = 'firing'`;
  await appendOutboxEvents(
    prismaSql(db),
    alerts.map((alert) => ({
      fingerprint: alert.fingerprint,
      chainId: alert.chainId,
      event: "resolved" as const,
    })),
  );
}

/** Keeps one resolve's changes for its undo; resolves older than `prunedBefore` are forgotten on the way. */
export async function saveLifecycleResolution(
  db: Tx,
  row: {
    id: string;
    at: Date;
    actorUserId: string | null;
    actor: string;
    kind: string;
    changes: LifecycleChanges;
  },
  prunedBefore: Date,
) {
  await db.lifecycleResolution.deleteMany({ where: { at: { lt: prunedBefore } } });
  await db.lifecycleResolution.create({
    data: { ...row, changes: row.changes as unknown as Prisma.InputJsonValue },
  });
}

/** The resolve, locked for this transaction: two undos of it apply one after the other. Null when unknown. */
export async function lockLifecycleResolution(db: Tx, id: string) {
  const [row] = await db.$queryRaw<
    {
      id: string;
      at: Date;
      kind: string;
      changes: LifecycleChanges;
      undone_at: Date | null;
      undone_by: string | null;
    }[]
  >`select id::text, at, kind, changes, undone_at, undone_by from lifecycle_resolutions
    where id = ${id}::uuid for update`;
  return row ?? null;
}

export async function markUndone(db: Tx, id: string, at: Date, by: string) {
  await db.lifecycleResolution.update({ where: { id }, data: { undoneAt: at, undoneBy: by } });
}

/** The current state of what a resolve changed, for the undo's check. */
export async function readCurrentStates(db: Tx, changes: LifecycleChanges) {
  const keys = changes.problems.map((change) => change.key);
  const [problems, items, alerts] = await Promise.all([
    keys.length ? db.problemResolution.findMany({ where: { key: { in: keys } } }) : [],
    changes.items.length
      ? db.$queryRaw<
          {
            chain_id: string;
            queue: string;
            status: string;
            acknowledged_at: Date | null;
            acknowledged_by: string | null;
            resolved_at: Date | null;
            resolved_by: string | null;
          }[]
        >`select t.chain_id, t.queue, t.status, t.acknowledged_at, t.acknowledged_by, t.resolved_at, t.resolved_by
          from triage_items t join unnest(${changes.items.map((i) => i.chainId)}::text[],
            ${changes.items.map((i) => i.queue)}::text[]) as u(chain_id, queue)
            on t.chain_id = u.chain_id and t.queue = u.queue`
      : [],
    changes.alerts.length
      ? db.alert.findMany({
          where: { fingerprint: { in: changes.alerts.map((alert) => alert.fingerprint) } },
          select: { fingerprint: true, status: true, endsAt: true, resolvedBy: true },
        })
      : [],
  ]);
  return { problems, items, alerts };
}

/** Puts the items back as they were: an item the resolve created goes again unless someone assigned it since. */
export async function restoreItems(db: Tx, items: LifecycleChanges["items"], actor: string, now: Date) {
  for (const item of items) {
    const where = { chainId_queue: { chainId: item.chainId, queue: item.queue } };
    if (item.before === null) {
      await db.triageItem.deleteMany({
        where: { chainId: item.chainId, queue: item.queue, assigneeUserId: null, formerOwner: null },
      });
      await db.triageItem.updateMany({
        where: { chainId: item.chainId, queue: item.queue },
        data: { status: "open", resolvedAt: null, resolvedBy: null, updatedAt: now },
      });
    } else {
      await db.triageItem.update({
        where,
        data: {
          status: item.before.status,
          acknowledgedAt: item.before.acknowledgedAt ? new Date(item.before.acknowledgedAt) : null,
          acknowledgedBy: item.before.acknowledgedBy,
          resolvedAt: item.before.resolvedAt ? new Date(item.before.resolvedAt) : null,
          resolvedBy: item.before.resolvedBy,
          updatedAt: now,
        },
      });
    }
  }
  if (items.length === 0) return;
  await db.triageEvent.createMany({
    data: items.map((item) => ({
      chainId: item.chainId,
      queue: item.queue,
      actor,
      action: "reopen",
      note: null,
      at: now,
      data: { from: "resolved", to: item.before?.status ?? "open", via: "undo" },
    })),
  });
}

/** Fires the alerts again as they were, with outbox events: receivers that got "resolved" get "firing" again. */
export async function restoreAlerts(db: Tx, alerts: LifecycleChanges["alerts"], now: Date) {
  if (alerts.length === 0) return;
  await db.$executeRaw`update alerts a set status = u.status, ends_at = u.ends_at, resolved_by = u.resolved_by,
      updated_at = ${now}
    from unnest(${alerts.map((a) => a.fingerprint)}::text[], ${alerts.map((a) => a.before.status)}::text[],
      ${alerts.map((a) => a.before.endsAt)}::timestamptz[], ${alerts.map((a) => a.before.resolvedBy)}::text[])
      as u(fingerprint, status, ends_at, resolved_by)
    where a.fingerprint = u.fingerprint`;
  await appendOutboxEvents(
    prismaSql(db),
    alerts.map((alert) => ({
      fingerprint: alert.fingerprint,
      chainId: alert.chainId,
      event: "firing" as const,
    })),
  );
}

/** The problems' resolutions as they were: none (open) or an earlier one (it had regressed). */
export async function restoreProblems(db: Tx, problems: LifecycleChanges["problems"]) {
  for (const problem of problems) {
    if (problem.before === null) await db.problemResolution.deleteMany({ where: { key: problem.key } });
    else
      await db.problemResolution.update({
        where: { key: problem.key },
        data: { resolvedAt: new Date(problem.before.resolvedAt), resolvedBy: problem.before.resolvedBy },
      });
  }
}
