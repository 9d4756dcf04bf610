import { type OperatorEffect, storedOutcome } from "@/lib/chains/operator-evidence";
import type { Sql } from "./sql";

/** The newest operator-recorded destination evidence of each chain that has any. */
export async function latestOperatorEffects(
  sql: Sql,
  chainIds: string[],
): Promise<Map<string, OperatorEffect>> {
  if (chainIds.length === 0) return new Map();
  const rows = await sql.query<
    {
      chain_id: string;
      outcome_verdict: string | null;
      outcome_verifier: string | null;
      outcome_receipt: string | null;
    } & OperatorEffect
  >(
    `select distinct on (chain_id) chain_id, status, receipt, checked_at as "checkedAt", outcome_verdict,
        outcome_verifier, outcome_receipt
      from operator_effects
      where chain_id = any($1::text[])
      order by chain_id, checked_at desc, id desc`,
    [chainIds],
  );
  return new Map(
    rows.map((row) => [
      row.chain_id,
      {
        status: row.status,
        receipt: row.receipt,
        checkedAt: row.checkedAt,
        outcome: storedOutcome(row.outcome_verdict, row.outcome_verifier, row.outcome_receipt),
      },
    ]),
  );
}
