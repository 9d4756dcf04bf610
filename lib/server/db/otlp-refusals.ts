import { poolSql, type Sql } from "./sql";

/** Refusals of one code: spans rejected alone, and exports that had one (or were refused whole). */
export type RefusalCount = { code: string; spans: number; exports: number };

const HOUR_MS = 3_600_000;

/** Adds an export's refusals to the hour `at` falls in (one statement, whatever the codes). */
export async function addOtlpRefusals(at: Date, counts: readonly RefusalCount[]): Promise<void> {
  if (counts.length === 0) return;
  const bucket = new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);
  await poolSql().execute(
    `insert into otlp_refusals (bucket, code, spans, exports)
       select $1, code, spans, exports
         from unnest($2::text[], $3::bigint[], $4::bigint[]) as counted(code, spans, exports)
     on conflict (bucket, code) do update
       set spans = otlp_refusals.spans + excluded.spans, exports = otlp_refusals.exports + excluded.exports`,
    [bucket, counts.map((c) => c.code), counts.map((c) => c.spans), counts.map((c) => c.exports)],
  );
}

/** Forgets refusal counts of hours that ended before `cutoff` (retention, with the spans'), at most `limit` rows. */
export async function deleteOtlpRefusalsBefore(sql: Sql, cutoff: Date, limit: number): Promise<number> {
  return sql.execute(
    `delete from otlp_refusals where (bucket, code) in (
       select bucket, code from otlp_refusals where bucket < $1::timestamptz - interval '1 hour'
       order by bucket limit $2)`,
    [cutoff.toISOString(), limit],
  );
}

/** Refusals by code since the hour `since` falls in (every hour when absent), most spans first. */
export async function readOtlpRefusals(since?: Date): Promise<RefusalCount[]> {
  const from = since ? new Date(Math.floor(since.getTime() / HOUR_MS) * HOUR_MS) : null;
  const rows = await poolSql().query<{ code: string; spans: bigint; exports: bigint }>(
    `select code, sum(spans)::bigint as spans, sum(exports)::bigint as exports from otlp_refusals
      where $1::timestamptz is null or bucket >= $1
      group by code order by sum(spans) desc, sum(exports) desc, code limit 100`,
    [from],
  );
  return rows.map((row) => ({ code: row.code, spans: Number(row.spans), exports: Number(row.exports) }));
}
