import type { TargetDeliveryFacts } from "@/lib/routing/target-health";
import type { Sql } from "./sql";

/**
 * What each target's deliveries made since `since` show: the newest success, the newest attempt and the newest
 * failed one (with its error), and how many died or wait for a retry. Bounded by `since` through
 * deliveries_created_at_idx; attempts by their delivery.
 */
export async function readTargetDeliveryFacts(sql: Sql, since: Date): Promise<TargetDeliveryFacts[]> {
  const rows = await sql.query<{
    channel: string;
    target_index: number;
    last_success_at: Date | null;
    dead: number;
    retrying: number;
    last_attempt_at: Date | null;
    last_attempt_error: string | null;
    last_failure_at: Date | null;
    last_failure_error: string | null;
    refused_at: Date | null;
    refused_error: string | null;
  }>(
    `with recent as (
        select id, channel, target_index, status, last_error, delivered_at, created_at
          from deliveries where created_at >= $1::timestamptz
      ), attempts as (
        select r.channel, r.target_index, a.id, a.at,
          coalesce(a.error, case when a.status_code >= 300 then 'HTTP ' || a.status_code end) as error
          from recent r join delivery_attempts a on a.delivery_id = r.id
      ), newest as (
        select distinct on (channel, target_index) channel, target_index, at, error
          from attempts order by channel, target_index, at desc, id desc
      ), newest_failure as (
        select distinct on (channel, target_index) channel, target_index, at, error
          from attempts where error is not null order by channel, target_index, at desc, id desc
      ), dead_without_attempt as (
        select distinct on (channel, target_index) channel, target_index, created_at as at, last_error as error
          from recent where status = 'dead' and last_error is not null
          order by channel, target_index, created_at desc, id desc
      )
      select r.channel, r.target_index, max(r.delivered_at) as last_success_at,
        count(*) filter (where r.status = 'dead')::int as dead,
        count(*) filter (where r.status = 'pending' and r.last_error is not null)::int as retrying,
        n.at as last_attempt_at, n.error as last_attempt_error,
        f.at as last_failure_at, f.error as last_failure_error, x.at as refused_at, x.error as refused_error
      from recent r
      left join newest n on n.channel = r.channel and n.target_index = r.target_index
      left join newest_failure f on f.channel = r.channel and f.target_index = r.target_index
      left join dead_without_attempt x on x.channel = r.channel and x.target_index = r.target_index
      group by r.channel, r.target_index, n.at, n.error, f.at, f.error, x.at, x.error`,
    [since.toISOString()],
  );
  return rows.map((row) => {
    // A delivery that died without an attempt (refused by the outbound policy, set aside) is a failure all the same.
    const refused =
      row.refused_at && row.refused_error ? { at: row.refused_at, error: row.refused_error } : null;
    const attempt = row.last_attempt_at ? { at: row.last_attempt_at, error: row.last_attempt_error } : null;
    const failure =
      row.last_failure_at && row.last_failure_error
        ? { at: row.last_failure_at, error: row.last_failure_error }
        : null;
    return {
      channel: row.channel,
      targetIndex: row.target_index,
      lastSuccessAt: row.last_success_at,
      lastAttempt: newer(attempt, refused),
      lastFailure: newer(failure, refused),
      dead: row.dead,
      retrying: row.retrying,
    };
  });
}

function newer<T extends { at: Date }>(a: T | null, b: T | null): T | null {
  if (!a || !b) return a ?? b;
  return b.at > a.at ? b : a;
}
