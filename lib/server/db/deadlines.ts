import { classify } from "@/lib/classifier";
import type { HealthRecord } from "@/lib/contract";
import { chainRowFor, type ChainRow, type StateChange } from "../ingest/chain-transitions";
import { classifyWithOperatorEffect } from "../ingest/operator-evidence";
import { countBy, metrics } from "../metrics/registry";
import { failureReason, setAside, writeIsolated } from "../worker/isolate";
import { writeChainState } from "./chain-writes";
import { latestOperatorEffects } from "./operator-effects";
import { clearSetAside, type SetAside, SET_ASIDE_JOBS } from "./set-aside";
import { inTransaction } from "./sql";

type DueChain = {
  chain_id: string;
  next_check_at: Date;
  current_seq: bigint;
  current_record_id: string;
  record_count: number;
  /** Parsed per chain, so one unreadable body sets its chain aside instead of failing the read of all. */
  body_text: string;
};

type Reclassified = {
  chainId: string;
  /** The chain's current record id: a set-aside lasts until it changes. */
  version: string;
  row: ChainRow;
  change?: StateChange;
  seq: bigint;
  body: HealthRecord;
};

const JOB = SET_ASIDE_JOBS.deadline;

/**
 * Waiting never stays green: a `working` chain whose nextCheckAt has passed with no newer record is classified
 * again at nextCheckAt + 1 ms (contract §4). Rows are claimed with FOR UPDATE SKIP LOCKED, and a chain being
 * written by ingestion right now (its advisory lock is held) is left for the next tick, so two app instances
 * never make the same transition twice. A chain whose record cannot be classified or written is set aside (until a
 * newer record arrives or an operator retries it) and the others move on. Returns how many chains moved.
 */
export async function reclassifyDueChains(now: Date = new Date(), limit = 200): Promise<number> {
  return inTransaction(async (sql) => {
    const due = await sql.query<DueChain>(
      `select c.chain_id, c.next_check_at, c.current_seq, c.current_record_id, c.record_count,
          r.body::text as body_text
        from chains c join health_records r on r.seq = c.current_seq
        where c.state = 'working' and c.next_check_at <= $1
          and not exists (select 1 from set_aside_items s
            where s.job = 'deadline' and s.item_key = c.chain_id and s.item_version = c.current_record_id)
        order by c.next_check_at
        limit $2
        for update of c skip locked`,
      [now, limit],
    );
    const operatorEffects = await latestOperatorEffects(
      sql,
      due.map((chain) => chain.chain_id),
    );
    const planned: Reclassified[] = [];
    const failed: SetAside[] = [];
    for (const chain of due) {
      const [{ locked } = { locked: false }] = await sql.query<{ locked: boolean }>(
        "select pg_try_advisory_xact_lock(hashtextextended($1, 0)) as locked",
        [chain.chain_id],
      );
      if (!locked) continue;
      try {
        planned.push(reclassify(chain, operatorEffects.get(chain.chain_id)));
      } catch (error) {
        failed.push({
          key: chain.chain_id,
          version: chain.current_record_id,
          reason: failureReason(error),
        });
      }
    }
    const { written, failures } = await writeIsolated(sql, planned, (items) =>
      writeChainState(
        sql,
        items.map((item) => item.row),
        items.flatMap((item) => item.change ?? []),
        new Map(items.map((item) => [item.seq, item.body])),
      ),
    );
    for (const { item, reason } of failures)
      failed.push({ key: item.chainId, version: item.version, reason });
    await setAside(sql, JOB, failed);
    // A chain set aside for an older record, now re-classified from a newer one, is no longer set aside.
    await clearSetAside(
      sql,
      JOB,
      written.map((item) => item.chainId),
    );
    const moved = written.flatMap((item) => item.change ?? []);
    countBy(
      metrics().chainsClassified,
      "state",
      moved.map((change) => change.toState),
      { cause: "deadline" },
    );
    return moved.length;
  });
}

function reclassify(
  chain: DueChain,
  operatorEffect: Parameters<typeof classifyWithOperatorEffect>[2],
): Reclassified {
  const body = JSON.parse(chain.body_text) as HealthRecord;
  const at = new Date(chain.next_check_at.getTime() + 1);
  const classification = classifyWithOperatorEffect(
    body,
    classify(body, at.toISOString()),
    operatorEffect,
    at.getTime(),
  );
  const stored = {
    seq: chain.current_seq,
    index: 0,
    record: body,
    observedAtMs: Date.parse(body.observedAt),
    classification,
  };
  const row = chainRowFor(stored, chain.record_count, at);
  const change: StateChange | undefined =
    classification.state === "working"
      ? undefined
      : {
          chainId: chain.chain_id,
          fromState: "working",
          toState: classification.state,
          reason: classification.reasons[0] ?? "",
          at,
          recordId: body.recordId,
          cause: "deadline",
        };
  return {
    chainId: chain.chain_id,
    version: chain.current_record_id,
    row,
    ...(change ? { change } : {}),
    seq: chain.current_seq,
    body,
  };
}
