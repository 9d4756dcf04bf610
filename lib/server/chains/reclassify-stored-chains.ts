import { reclassifyStored } from "@/lib/chains/reclassify";
import type { ChainRow, StateChange } from "@/lib/chains/transitions";
import type { HealthRecord } from "@/lib/contract";
import { lockChainsAndRecords } from "../db/chain-writes";
import { latestOperatorEffects } from "../db/operator-effects";
import { inTransaction } from "../db/sql";
import { readChainsAfter } from "../db/stored-rebuild";
import { countBy, metrics } from "../metrics/registry";
import { commitChainState } from "./commit-chain-state";

export type ChainReclassification = {
  chains: number;
  /** Chains whose stored classification differed from today's classifier's: rewritten. */
  rewritten: number;
  /** Of those, chains whose state moved (a history row, alerts opened or resolved). */
  moved: number;
  /** Chains whose current record could not be read or classified: left as they are. */
  unreadable: number;
};

const CHAINS_A_STEP = 500;

/**
 * Every chain's current record classified again by today's classifier (`reclassifyStored`); a chain whose result
 * differs is written the one way chain state is (`commitChainState`: row, history, rollup deltas, alerts). A step
 * of chains a transaction, under their locks. `dryRun` counts and rolls each step back.
 */
export async function reclassifyStoredChains(
  options: { dryRun?: boolean; now?: Date } = {},
): Promise<ChainReclassification> {
  const now = options.now ?? new Date();
  const total: ChainReclassification = { chains: 0, rewritten: 0, moved: 0, unreadable: 0 };
  let after = "";
  for (;;) {
    const step = await inTransaction(async (sql) => {
      const chains = await readChainsAfter(sql, after, CHAINS_A_STEP);
      if (chains.length === 0) return undefined;
      const ids = chains.map((chain) => chain.chainId);
      await lockChainsAndRecords(sql, ids, []);
      // Read again under the locks: a record stored meanwhile is what is current now.
      const locked = await readChainsAfter(sql, after, CHAINS_A_STEP);
      const effects = await latestOperatorEffects(
        sql,
        locked.map((chain) => chain.chainId),
      );
      const rows: ChainRow[] = [];
      const changes: StateChange[] = [];
      const records = new Map<bigint, HealthRecord>();
      let unreadable = 0;
      for (const chain of locked) {
        try {
          const record = JSON.parse(chain.bodyText) as HealthRecord;
          const decided = reclassifyStored(
            {
              chainId: chain.chainId,
              currentSeq: chain.currentSeq,
              recordCount: chain.recordCount,
              evaluatedAt: chain.evaluatedAt,
              stored: {
                state: chain.state,
                layer: chain.layer,
                reasons: chain.reasons,
                retrySafe: chain.retrySafe,
                evidence: chain.evidence,
                shadowedState: chain.shadowedState,
                shadowedReason: chain.shadowedReason,
                nextCheckAt: chain.nextCheckAt,
              },
              record,
            },
            effects.get(chain.chainId),
            now,
          );
          if (decided === undefined) continue;
          rows.push(decided.row);
          if (decided.change) changes.push(decided.change);
          records.set(chain.currentSeq, record);
        } catch {
          unreadable++;
        }
      }
      if (rows.length > 0) await commitChainState(sql, rows, changes, records);
      const counted = {
        chains: locked.length,
        rewritten: rows.length,
        moved: changes.length,
        unreadable,
        last: locked.at(-1)?.chainId ?? (ids.at(-1) as string),
        states: changes.map((change) => change.toState),
      };
      if (options.dryRun) throw new DryRun(counted);
      return counted;
    }).catch((error: unknown) => {
      if (error instanceof DryRun) return error.step;
      throw error;
    });
    if (step === undefined) return total;
    total.chains += step.chains;
    total.rewritten += step.rewritten;
    total.moved += step.moved;
    total.unreadable += step.unreadable;
    if (!options.dryRun) countBy(metrics().chainsClassified, "state", step.states, { cause: "reclassify" });
    after = step.last;
  }
}

type Step = Omit<ChainReclassification, never> & { last: string; states: string[] };

class DryRun extends Error {
  constructor(readonly step: Step) {
    super("dry run");
  }
}
