import type { State } from "@/lib/contract";
import type { SessionCallTimes } from "@/lib/dashboard/session-timeline";
import { poolSql } from "./sql";

/**
 * The times of each chain's current record in a session, for its timeline (lib/dashboard/session-timeline.ts):
 * the call's start, response, task and deadline, the handshake and the catalog read. Read from the stored body (`json`,
 * so only these few fields are taken apart), at most 1,000 chains, the newest, as the session's chain list.
 */
export async function readSessionCallTimes(sessionId: string): Promise<SessionCallTimes[]> {
  const rows = await poolSql().query<{
    chain_id: string;
    state: string;
    tool: string | null;
    started_at: string | null;
    responded_at: string | null;
    task_status: string | null;
    task_updated_at: string | null;
    deadline_ms: string | null;
    initialized_at: string | null;
    catalog_at: string | null;
  }>(
    `select c.chain_id, c.state, c.tool,
        h.body->'call'->>'startedAt' as started_at,
        h.body->'call'->'response'->>'at' as responded_at,
        h.body->'call'->'task'->>'status' as task_status,
        h.body->'call'->'task'->>'updatedAt' as task_updated_at,
        h.body->'call'->>'deadlineMs' as deadline_ms,
        h.body->'session'->'protocol'->>'initializedAt' as initialized_at,
        h.body->'catalog'->>'refreshedAt' as catalog_at
      from (select chain_id, state, tool, current_record_id from chains
            where session_id = $1 order by observed_at desc limit 1000) c
      join health_records h on h.chain_id = c.chain_id and h.record_id = c.current_record_id`,
    [sessionId],
  );
  return rows.map((row) => ({
    chainId: row.chain_id,
    state: row.state as State,
    tool: row.tool,
    startedAt: row.started_at,
    respondedAt: row.responded_at,
    taskStatus: row.task_status,
    taskUpdatedAt: row.task_updated_at,
    deadlineMs: row.deadline_ms === null ? null : Number(row.deadline_ms),
    initializedAt: row.initialized_at,
    catalogRefreshedAt: row.catalog_at,
  }));
}
