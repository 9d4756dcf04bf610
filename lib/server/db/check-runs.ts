import type { Prisma } from "@/lib/generated/prisma/client";
import { getPrisma } from "./client";

export type CheckRunRow = {
  id: bigint;
  chainId: string;
  checkName: string;
  trigger: string;
  effect: string;
  outcome: string | null;
  receipt: string;
  reconciled: boolean;
  at: Date;
};

export type CheckRunInsert = Omit<CheckRunRow, "id" | "at"> & { at: Date };

export async function insertCheckRuns(
  runs: CheckRunInsert[],
  tx: Prisma.TransactionClient = getPrisma(),
): Promise<void> {
  if (runs.length > 0) await tx.checkRun.createMany({ data: runs });
}

/** A chain's check runs, newest first (not the job's "no check matched" marks, which have no check name). */
export async function listCheckRuns(chainId: string, limit = 50): Promise<CheckRunRow[]> {
  return getPrisma().checkRun.findMany({
    where: { chainId, checkName: { not: "" } },
    orderBy: { at: "desc" },
    take: limit,
  });
}

/**
 * Chains whose effect is unknown (as their state or their shadowed state) that no check has looked at since
 * `lookedBefore`: the background job's work, oldest first.
 */
export async function listChainsAwaitingChecks(lookedBefore: Date, limit: number): Promise<string[]> {
  const rows = await getPrisma().$queryRaw<{ chain_id: string }[]>`
    select c.chain_id from chains c
     where (c.state = 'effect_unknown' or c.shadowed_state = 'effect_unknown')
       and not exists (select 1 from check_runs r where r.chain_id = c.chain_id and r.at >= ${lookedBefore})
     order by c.updated_at
     limit ${limit}`;
  return rows.map((row) => row.chain_id);
}

/**
 * Unverified calls of the servers and tools `matches` names (null: any) that no check has looked at since
 * `lookedBefore`: the chains a check that reads the deliverable back may verify, oldest write first.
 */
export async function listUnverifiedAwaitingChecks(
  matches: { server: string | null; tool: string | null }[],
  lookedBefore: Date,
  limit: number,
): Promise<string[]> {
  if (matches.length === 0) return [];
  const rows = await getPrisma().$queryRaw<{ chain_id: string }[]>`
    select c.chain_id from chains c
     where c.state = 'unverified' and c.tool is not null
       and exists (
         select 1 from unnest(${matches.map((m) => m.server)}::text[], ${matches.map((m) => m.tool)}::text[])
           as m(server, tool)
          where (m.server is null or m.server = c.server_name) and (m.tool is null or m.tool = c.tool))
       and not exists (select 1 from check_runs r where r.chain_id = c.chain_id and r.at >= ${lookedBefore})
     order by c.updated_at
     limit ${limit}`;
  return rows.map((row) => row.chain_id);
}
