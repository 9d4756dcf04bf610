import type { ChainRow, StateChange } from "@/lib/chains/transitions";
import type { HealthRecord } from "@/lib/contract";
import { enqueueAlertEvents } from "../routing/enqueue";
import { writeChainState } from "../db/chain-writes";
import type { Sql } from "../db/sql";

/**
 * The one way chain state is committed — by ingestion, the deadline worker and reconciliation: current rows, their
 * history, and the alert events they cause, all in the caller's transaction, so an alert event exists exactly when
 * the state change it reports was committed.
 */
export async function commitChainState(
  sql: Sql,
  rows: ChainRow[],
  changes: StateChange[],
  /** The rows' current records by seq, when the caller has them in memory (saves the alerts a read-back). */
  records?: ReadonlyMap<bigint, HealthRecord>,
  /** Chains this transaction creates: they have no alerts yet, so none are read for them. */
  newChains?: ReadonlySet<string>,
): Promise<void> {
  await writeChainState(sql, rows, changes);
  await enqueueAlertEvents(sql, rows, records, newChains);
}
