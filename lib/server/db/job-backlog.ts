import { poolSql } from "./sql";

export type JobBacklog = {
  /** Seconds the oldest due item of each job has waited (0 when nothing is due). */
  lagSeconds: { deadline: number; "alert-routing": number; "group-flush": number; delivery: number };
  outboxEvents: number;
};

/** What the background jobs have left to do, read in one statement (for /metrics). */
export async function readJobBacklog(now: Date = new Date()): Promise<JobBacklog> {
  const [row] = await poolSql().query<{
    deadline: number | null;
    alert_routing: number | null;
    group_flush: number | null;
    delivery: number | null;
    outbox_events: number;
  }>(
    `select
      (select extract(epoch from $1 - min(c.next_check_at))::float8 from chains c
        where c.state = 'working' and c.next_check_at <= $1
          and not exists (select 1 from set_aside_items s
            where s.job = 'deadline' and s.item_key = c.chain_id and s.item_version = c.current_record_id)
      ) as deadline,
      (select extract(epoch from $1 - min(created_at))::float8 from alert_outbox) as alert_routing,
      (select extract(epoch from $1 - min(next_action_at))::float8 from notification_groups
        where next_action_at <= $1) as group_flush,
      (select extract(epoch from $1 - min(next_attempt_at))::float8 from deliveries
        where status = 'pending' and next_attempt_at <= $1) as delivery,
      (select count(*)::int from alert_outbox) as outbox_events`,
    [now],
  );
  const lag = (seconds: number | null | undefined) => Math.max(0, seconds ?? 0);
  return {
    lagSeconds: {
      deadline: lag(row?.deadline),
      "alert-routing": lag(row?.alert_routing),
      "group-flush": lag(row?.group_flush),
      delivery: lag(row?.delivery),
    },
    outboxEvents: row?.outbox_events ?? 0,
  };
}
