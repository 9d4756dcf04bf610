import type { Coverage, CoverageCounts, CoverageRow } from "@/lib/dashboard/api-types";
import { Prisma } from "@/lib/generated/prisma/client";
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
 * have been healthy (rule 22), so it has a passing receipt; whether an LLM judge gave it is on its path only, read
 * with the unseen layers' counts. Counted from the rollups with their unfolded deltas, so the answer is
 * exact: whole days from `chain_rollup_day_rows`, the whole hours before the first of them from
 * `chain_rollup_rows`, and a `since` inside an hour adds that hour's rest from `chains` (at most an hour of rows).
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
          1 from chains
        where tool is not null and observed_at >= ${since} and observed_at < ${wholeHoursFrom}`
      : Prisma.empty;
  const wholeHours =
    wholeHoursFrom && wholeDaysFrom && wholeHoursFrom < wholeDaysFrom
      ? Prisma.sql`union all
        select server_name, tool, state, reason, weak, chains from chain_rollup_rows
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
      coalesce(sum(chains) filter (where reason = 'outcome.no_receipt'), 0)::int as no_verifier
    from (
      select server_name, tool, state, reason, weak, chains from chain_rollup_day_rows
      where tool <> '' ${wholeDaysFrom ? Prisma.sql`and bucket >= ${wholeDaysFrom}` : Prisma.empty}
      ${wholeHours}
      ${partialHour}
    ) counted(server_name, tool, state, reason, weak, chains)
    group by server_name, tool
    having sum(chains) > 0
    order by sum(chains) desc, nullif(server_name, ''), tool
    limit 500`;
  const unseen = await countUnseenLayers(since);
  const coverageRows: Omit<CoverageRow, "checks">[] = rows.map((row) => ({
    server: row.server,
    tool: row.tool,
    ...counts(row, unseen.get(unseenKey(row.server, row.tool))),
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

type UnseenRow = {
  server: string | null;
  tool: string;
  any: number;
  handshake: number;
  catalog: number;
  /**
   * Would-be healthy chains whose passing receipt came from an LLM judge: a not-observed code decides only those
   * (they are `unverified`), so the index alone answers.
   */
  weak: number;
};

const unseenKey = (server: string | null, tool: string) => `${server ?? ""}\u0000${tool}`;

/**
 * Contract v1.2: calls whose chain has a layer the reporter did not see, per server and tool. The rollups count
 * deciding reasons only, and a not-observed code may follow another one, so these are counted from `chains`
 * through the partial index that holds only such chains (migration 20261205010000), on the index alone.
 */
async function countUnseenLayers(since?: Date): Promise<Map<string, UnseenRow>> {
  const rows = await getPrisma().$queryRaw<UnseenRow[]>`
    select server_name as server, tool, count(*)::int as any,
      count(*) filter (where 'session.not_observed' = any(reasons))::int as handshake,
      count(*) filter (where 'catalog.not_observed' = any(reasons))::int as catalog,
      count(*) filter (where reasons[1] in ('session.not_observed', 'catalog.not_observed')
        and 'outcome.weak_evidence' = any(reasons))::int as weak
    from chains
    where reasons && array['session.not_observed', 'catalog.not_observed']::text[] and tool is not null
      ${since ? Prisma.sql`and observed_at >= ${since}` : Prisma.empty}
    group by server_name, tool`;
  return new Map(rows.map((row) => [unseenKey(row.server, row.tool), row]));
}

function counts(row: Row, unseen: UnseenRow | undefined): CoverageCounts {
  const reached = row.with_receipt + row.pending + row.unavailable + row.no_verifier;
  return {
    calls: row.calls,
    withReceipt: row.with_receipt,
    weak: row.weak + (unseen?.weak ?? 0),
    pending: row.pending,
    unavailable: row.unavailable,
    noVerifier: row.no_verifier,
    notReached: row.calls - reached,
    notObserved: unseen?.any ?? 0,
    handshakeNotObserved: unseen?.handshake ?? 0,
    catalogNotObserved: unseen?.catalog ?? 0,
  };
}
