import type { Coverage, CoverageCounts, CoverageRow } from "@/lib/dashboard/api-types";
import { Prisma } from "@/lib/generated/prisma/client";
import { UNSEEN, unseenLayersOf } from "./chain-rollup-sql";
import { getPrisma } from "./client";

type Row = {
  server: string | null;
  tool: string;
  calls: number;
  with_receipt: number;
  weak: number;
  pending: number;
  unavailable: number;
  no_verifier: number;
  not_observed: number;
  handshake_not_observed: number;
  catalog_not_observed: number;
  weak_unseen: number;
};

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

const ceilTo = (at: Date, ms: number) => new Date(Math.ceil(at.getTime() / ms) * ms);

/**
 * Outcome coverage per server and tool, read from each call's current classification (the outcome rules 20–22
 * already sorted every call that reached them): a verdict, pass or fail, is a receipt; `outcome.pending` waits for a
 * declared verifier; `outcome.unavailable` could not be read back; `outcome.no_receipt` had no verifier at all. Calls
 * that failed, are in doubt, in flight, or stopped at the session or catalog never reached the outcome check and
 * are counted apart (calls − the four). Contract v1.2: an `unverified` call decided by a not-observed code would
 * have been healthy (rule 22), so it has a passing receipt; whether an LLM judge gave it is on its path only, kept in
 * the rollups' `unseen` bits with the layers not seen (chain-rollup-sql.ts). Counted from the rollups with their
 * unfolded deltas, so the answer is exact: whole days from `chain_rollup_day_rows`, the whole hours before the first
 * of them from `chain_rollup_rows`, and a `since` inside an hour adds that hour's rest from `chains` (at most an hour
 * of rows).
 */
export async function outcomeCoverage(
  since?: Date,
): Promise<Omit<Coverage, "rows" | "otlpRefusals"> & { rows: Omit<CoverageRow, "checks">[] }> {
  const wholeHoursFrom = since ? ceilTo(since, HOUR_MS) : null;
  const wholeDaysFrom = since ? ceilTo(since, DAY_MS) : null;
  const partialHour =
    since && wholeHoursFrom && since < wholeHoursFrom
      ? Prisma.sql`union all
        select coalesce(server_name, ''), tool, state, coalesce(reasons[1], ''), coalesce(evidence = 'weak', false),
          ${Prisma.raw(unseenLayersOf("chains"))}, 1 from chains
        where tool is not null and observed_at >= ${since} and observed_at < ${wholeHoursFrom}`
      : Prisma.empty;
  const wholeHours =
    wholeHoursFrom && wholeDaysFrom && wholeHoursFrom < wholeDaysFrom
      ? Prisma.sql`union all
        select server_name, tool, state, reason, weak, unseen, chains from chain_rollup_rows
        where tool <> '' and bucket >= ${wholeHoursFrom} and bucket < ${wholeDaysFrom}`
      : Prisma.empty;
  const rows = await getPrisma().$queryRaw<Row[]>`
    select nullif(server_name, '') as server, tool,
      sum(chains)::int as calls,
      coalesce(sum(chains) filter (where state = 'healthy' or reason = 'outcome.verifier_failed'
        or (state = 'unverified' and reason in ('session.not_observed', 'catalog.not_observed'))), 0)::int
        as with_receipt,
      coalesce(sum(chains) filter (where weak), 0)::int as weak,
      coalesce(sum(chains) filter (where reason = 'outcome.pending'), 0)::int as pending,
      coalesce(sum(chains) filter (where reason = 'outcome.unavailable'), 0)::int as unavailable,
      coalesce(sum(chains) filter (where reason = 'outcome.no_receipt'), 0)::int as no_verifier,
      coalesce(sum(chains) filter (where unseen & ${Prisma.raw(String(UNSEEN.handshake | UNSEEN.catalog))} <> 0), 0)::int
        as not_observed,
      coalesce(sum(chains) filter (where unseen & ${Prisma.raw(String(UNSEEN.handshake))} <> 0), 0)::int as handshake_not_observed,
      coalesce(sum(chains) filter (where unseen & ${Prisma.raw(String(UNSEEN.catalog))} <> 0), 0)::int as catalog_not_observed,
      coalesce(sum(chains) filter (where unseen & ${Prisma.raw(String(UNSEEN.weakReceipt))} <> 0), 0)::int as weak_unseen
    from (
      select server_name, tool, state, reason, weak, unseen, chains from chain_rollup_day_rows
      where tool <> '' ${wholeDaysFrom ? Prisma.sql`and bucket >= ${wholeDaysFrom}` : Prisma.empty}
      ${wholeHours}
      ${partialHour}
    ) counted(server_name, tool, state, reason, weak, unseen, chains)
    group by server_name, tool
    having sum(chains) > 0
    order by sum(chains) desc, nullif(server_name, ''), tool
    limit 500`;
  const coverageRows: Omit<CoverageRow, "checks">[] = rows.map((row) => ({
    server: row.server,
    tool: row.tool,
    ...counts(row),
  }));
  const totals = coverageRows.reduce<CoverageCounts>(
    (sum, row) => {
      for (const key of Object.keys(sum) as (keyof CoverageCounts)[]) sum[key] += row[key];
      return sum;
    },
    {
      calls: 0,
      withReceipt: 0,
      weak: 0,
      pending: 0,
      unavailable: 0,
      noVerifier: 0,
      notReached: 0,
      notObserved: 0,
      handshakeNotObserved: 0,
      catalogNotObserved: 0,
    },
  );
  return { since: since?.toISOString() ?? null, rows: coverageRows, totals };
}

function counts(row: Row): CoverageCounts {
  const reached = row.with_receipt + row.pending + row.unavailable + row.no_verifier;
  return {
    calls: row.calls,
    withReceipt: row.with_receipt,
    weak: row.weak + row.weak_unseen,
    pending: row.pending,
    unavailable: row.unavailable,
    noVerifier: row.no_verifier,
    notReached: row.calls - reached,
    notObserved: row.not_observed,
    handshakeNotObserved: row.handshake_not_observed,
    catalogNotObserved: row.catalog_not_observed,
  };
}
