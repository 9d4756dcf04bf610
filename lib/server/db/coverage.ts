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
 * Outcome coverage per server and tool, over each call's current record: a verdict (pass or fail) is a receipt;
 * "unavailable" means the verifier could not read the result back; no verdict yet with a declared verifier is
 * pending; no verdict and no verifier is the gap that keeps `unverified` from shrinking. The four partition
 * every call.
 */
export async function outcomeCoverage(since?: Date): Promise<Coverage> {
  const rows = await getPrisma().$queryRaw<Row[]>`
    select c.server_name as server, c.tool,
      count(*)::int as calls,
      count(*) filter (where o.verdict in ('pass', 'fail'))::int as with_receipt,
      count(*) filter (where o.verdict in ('pass', 'fail') and o.verifier = 'llm_judge')::int as weak,
      count(*) filter (where o.verdict is null and o.expected is not null)::int as pending,
      count(*) filter (where o.verdict = 'unavailable')::int as unavailable,
      count(*) filter (where o.verdict is null and o.expected is null)::int as no_verifier
    from chains c
    join health_records r on r.seq = c.current_seq
    cross join lateral (select r.body -> 'call' -> 'outcome' ->> 'verdict' as verdict,
      r.body -> 'call' -> 'outcome' ->> 'verifier' as verifier,
      r.body -> 'call' ->> 'expectedVerifier' as expected) o
    where c.tool is not null ${since ? Prisma.sql`and c.observed_at >= ${since}` : Prisma.empty}
    group by c.server_name, c.tool
    order by count(*) desc, c.server_name, c.tool
    limit 500`;
  const coverageRows: CoverageRow[] = rows.map((row) => ({
    server: row.server,
    tool: row.tool,
    calls: row.calls,
    withReceipt: row.with_receipt,
    weak: row.weak,
    pending: row.pending,
    unavailable: row.unavailable,
    noVerifier: row.no_verifier,
  }));
  const totals: CoverageCounts = {
    calls: 0,
    withReceipt: 0,
    weak: 0,
    pending: 0,
    unavailable: 0,
    noVerifier: 0,
  };
  for (const row of coverageRows) {
    for (const key of Object.keys(totals) as (keyof CoverageCounts)[]) totals[key] += row[key];
  }
  return { since: since?.toISOString() ?? null, rows: coverageRows, totals };
}
