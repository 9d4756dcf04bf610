import { classify } from "@/lib/classifier";
import type { HealthRecord } from "@/lib/contract";
import { chainRowFor, type StateChange } from "../ingest/chain-transitions";
import { classifyWithOperatorEffect } from "../ingest/operator-evidence";
import { writeChainState } from "./chain-writes";
import { latestOperatorEffects } from "./operator-effects";
import { inTransaction } from "./sql";

type DueChain = {
  chain_id: string;
  next_check_at: Date;
  current_seq: bigint;
  record_count: number;
  body: HealthRecord;
};

/**
 * Waiting never stays green: a `working` chain whose nextCheckAt has passed with no newer record is classified
 * again at nextCheckAt + 1 ms (contract §4). Rows are claimed with FOR UPDATE SKIP LOCKED, and a chain being
 * written by ingestion right now (its advisory lock is held) is left for the next tick, so two app instances
 * never make the same transition twice. Returns how many chains moved.
 */
export async function reclassifyDueChains(now: Date = new Date(), limit = 200): Promise<number> {
  return inTransaction(async (sql) => {
    const due = await sql.query<DueChain>(
      `select c.chain_id, c.next_check_at, c.current_seq, c.record_count, r.body
        from chains c join health_records r on r.seq = c.current_seq
        where c.state = 'working' and c.next_check_at <= $1
        order by c.next_check_at
        limit $2
        for update of c skip locked`,
      [now, limit],
    );
    const rows = [];
    const changes: StateChange[] = [];
    const operatorEffects = await latestOperatorEffects(
      sql,
      due.map((chain) => chain.chain_id),
    );
    for (const chain of due) {
      const [{ locked } = { locked: false }] = await sql.query<{ locked: boolean }>(
        "select pg_try_advisory_xact_lock(hashtextextended($1, 0)) as locked",
        [chain.chain_id],
      );
      if (!locked) continue;
      const at = new Date(chain.next_check_at.getTime() + 1);
      const classification = classifyWithOperatorEffect(
        chain.body,
        classify(chain.body, at.toISOString()),
        operatorEffects.get(chain.chain_id),
        at.getTime(),
      );
      const stored = {
        seq: chain.current_seq,
        index: 0,
        record: chain.body,
        observedAtMs: Date.parse(chain.body.observedAt),
        classification,
      };
      rows.push(chainRowFor(stored, chain.record_count, at));
      if (classification.state !== "working") {
        changes.push({
          chainId: chain.chain_id,
          fromState: "working",
          toState: classification.state,
          reason: classification.reasons[0] ?? "",
          at,
          recordId: chain.body.recordId,
          cause: "deadline",
        });
      }
    }
    const bySeq = new Map(due.map((chain) => [chain.current_seq, chain.body]));
    await writeChainState(sql, rows, changes, bySeq);
    return changes.length;
  });
}
