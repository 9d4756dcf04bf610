import { type DeadlineDecision, reclassifyAtDeadline } from "@/lib/chains/deadline";
import type { HealthRecord } from "@/lib/contract";
import { claimDueWorkingChains, type DueChainRow, tryLockChain } from "../db/deadlines";
import { latestOperatorEffects } from "../db/operator-effects";
import { clearSetAside, type SetAside, SET_ASIDE_JOBS } from "../db/set-aside";
import { inTransaction } from "../db/sql";
import { countBy, metrics } from "../metrics/registry";
import { failureReason, writeIsolated } from "../db/isolated-writes";
import { setAside } from "../worker/isolate";
import { commitChainState } from "./commit-chain-state";

type Reclassified = DeadlineDecision & {
  chainId: string;
  /** The chain's current record id: a set-aside lasts until it changes. */
  version: string;
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
    const due = await claimDueWorkingChains(sql, now, limit);
    const operatorEffects = await latestOperatorEffects(
      sql,
      due.map((chain) => chain.chainId),
    );
    const planned: Reclassified[] = [];
    const failed: SetAside[] = [];
    for (const chain of due) {
      if (!(await tryLockChain(sql, chain.chainId))) continue;
      try {
        planned.push(reclassify(chain, operatorEffects.get(chain.chainId)));
      } catch (error) {
        failed.push({ key: chain.chainId, version: chain.currentRecordId, reason: failureReason(error) });
      }
    }
    const { written, failures } = await writeIsolated(sql, planned, (items) =>
      commitChainState(
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

/** Parsed here, per chain, so one unreadable body sets its chain aside instead of failing the read of all. */
function reclassify(
  chain: DueChainRow,
  operatorEffect: Parameters<typeof reclassifyAtDeadline>[1],
): Reclassified {
  const body = JSON.parse(chain.bodyText) as HealthRecord;
  return {
    ...reclassifyAtDeadline({ ...chain, record: body }, operatorEffect),
    chainId: chain.chainId,
    version: chain.currentRecordId,
    seq: chain.currentSeq,
    body,
  };
}
