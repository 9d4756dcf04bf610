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

/**
 * Outcome coverage per server and tool, read from each call's current classification (the outcome rules 20–22
 * already sorted every call that reached them): a verdict, pass or fail, is a receipt; `outcome.pending` waits for a
 * declared verifier; `outcome.unavailable` could not be read back; `outcome.no_receipt` had no verifier at all. Calls
 * that failed, are in doubt, in flight, or stopped at the session or catalog never reached the outcome check and
 * are counted apart (calls − the four). Reading the classification, not the stored JSON, keeps the report to one
 * pass over the chains table instead of reading every record body.
 */
export async function outcomeCoverage(since?: Date): Promise<Coverage> {
  const rows = await getPrisma().$queryRaw<Row[]>`
    select server_name as server, tool,
      count(*)::int as calls,
      count(*) filter (where state = 'healthy' or reasons[1] = 'outcome.verifier_failed')::int as with_receipt,
      count(*) filter (where evidence = 'weak')::int as weak,
      count(*) filter (where reasons[1] = 'outcome.pending')::int as pending,
      count(*) filter (where reasons[1] = 'outcome.unavailable')::int as unavailable,
      count(*) filter (where reasons[1] = 'outcome.no_receipt')::int as no_verifier
    from chains
    where tool is not null ${since ? Prisma.sql`and observed_at >= ${since}` : Prisma.empty}
    group by server_name, tool
    order by count(*) desc, server_name, tool
    limit 500`;
  const coverageRows: CoverageRow[] = rows.map((row) => ({
    server: row.server,
    tool: row.tool,
    ...counts(row),
  }));
  const totals = coverageRows.reduce<CoverageCounts>(
    (sum, row) => {
      for (const key of Object.keys(sum) as (keyof CoverageCounts)[]) sum[key] += row[key];
      return sum;
    },
    { calls: 0, withReceipt: 0, weak: 0, pending: 0, unavailable: 0, noVerifier: 0, notReached: 0 },
  );
  return { since: since?.toISOString() ?? null, rows: coverageRows, totals };
}

function counts(row: Row): CoverageCounts {
  const reached = row.with_receipt + row.pending + row.unavailable + row.no_verifier;
  return {
    calls: row.calls,
    withReceipt: row.with_receipt,
    weak: row.weak,
    pending: row.pending,
    unavailable: row.unavailable,
    noVerifier: row.no_verifier,
    notReached: row.calls - reached,
  };
}
