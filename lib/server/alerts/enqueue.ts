import type { Prisma } from "@/lib/generated/prisma/client";
import type { ChainRow, StateChange } from "../ingest/chain-transitions";

/**
 * Called in the same transaction as every write of chain state (ingestion, deadline re-classification,
 * reconciliation), so an alert event exists exactly when the state change it reports was committed.
 * Placeholder until the routing outbox lands: writes nothing.
 */
export async function enqueueAlertEvents(
  _tx: Prisma.TransactionClient,
  _rows: ChainRow[],
  _changes: StateChange[],
): Promise<void> {}
