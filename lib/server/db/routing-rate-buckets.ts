import { poolSql } from "./sql";

// Send-rate buckets and Retry-After pauses shared by every instance through PostgreSQL: each instance also keeps its
// own buckets (rate-limits.ts) so it never asks here more often than the rate allows, and asks here so that N
// instances together keep the rate once.

/**
 * Takes one token from the shared bucket `keyHash` (created full), refilled at `perSecond` up to `burst` by the
 * database's clock. Returns 0 when a token was taken, else the milliseconds until one will be there.
 */
export async function takeSharedToken(keyHash: string, perSecond: number, burst: number): Promise<number> {
  const sql = poolSql();
  await sql.execute(
    `insert into delivery_rate_buckets (key_hash, tokens, refilled_at) values ($1, $2, clock_timestamp())
      on conflict (key_hash) do nothing`,
    [keyHash, burst],
  );
  // The UPDATE re-checks its WHERE on the locked row, so two instances racing for the last token get it once.
  const taken = await sql.query<{ tokens: number }>(
    `update delivery_rate_buckets
        set tokens = least($3::float8, tokens + greatest(0, extract(epoch from clock_timestamp() - refilled_at)) * $2) - 1,
            refilled_at = greatest(refilled_at, clock_timestamp())
      where key_hash = $1
        and least($3::float8, tokens + greatest(0, extract(epoch from clock_timestamp() - refilled_at)) * $2) >= 1
      returning tokens`,
    [keyHash, perSecond, burst],
  );
  if (taken.length > 0) return 0;
  const [left] = await sql.query<{ tokens: number }>(
    `select least($2::float8, tokens + greatest(0, extract(epoch from clock_timestamp() - refilled_at)) * $3) as tokens
       from delivery_rate_buckets where key_hash = $1`,
    [keyHash, burst, perSecond],
  );
  return Math.max(1, Math.ceil(((1 - (left?.tokens ?? 0)) * 1000) / perSecond));
}

/**
 * A receiver's Retry-After, for every instance: the delivery claim (claimDueDeliveries) skips the target until
 * `until`. Deliveries another instance is sending now record their own answer.
 */
export async function pauseTargetEverywhere(
  channel: string,
  targetIndex: number,
  until: Date,
): Promise<void> {
  await poolSql().execute(
    `insert into delivery_target_pauses as p (channel, target_index, paused_until) values ($1, $2, $3)
      on conflict (channel, target_index) do update set paused_until = greatest(p.paused_until, excluded.paused_until)`,
    [channel, targetIndex, until],
  );
}
