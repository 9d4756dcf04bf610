import { setTimeout as sleep } from "node:timers/promises";
import { isTransactionConflict } from "./availability";

/** Attempts of one transaction before its conflict is reported (each a fresh transaction: nothing was written). */
export const CONFLICT_ATTEMPTS = 5;

/**
 * Runs `transaction` again when PostgreSQL aborted it as a deadlock victim or a serialization failure, after a short
 * random pause (so two retried transactions do not collide again in step). The last conflict is rethrown for the
 * caller to answer, never a 500: see configBusy.
 */
export async function retryOnConflict<T>(transaction: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (error) {
      if (attempt >= CONFLICT_ATTEMPTS || !isTransactionConflict(error)) throw error;
      await sleep(5 * 2 ** attempt * (0.5 + Math.random()));
    }
  }
}
