import { type RefusalEntry, storeRefusals } from "../db/operations-guard-store";
import { poolSql } from "../db/sql";

// The guard stores every decision before it answers. A refusal (wait, reconcile first, already committed) changes
// nothing but its own row, so the refusals decided while one group is being written go together in the next: one
// statement and one commit for the group instead of one each (group commit, done where the decisions are made). The
// first refusal after a quiet spell is written at once, alone; a group forms only while writes are already waiting.

type Waiting = { entry: RefusalEntry; settle: (error?: unknown) => void };

/** At most this many refusals in one statement (seven arrays of parameters). */
const GROUP_LIMIT = 256;

const waiting: Waiting[] = [];
let writing = false;

/** Stores the refusal with the others waiting; resolves once it is committed, rejects with the group's error. */
export function storeRefusal(entry: RefusalEntry): Promise<void> {
  return new Promise((resolve, reject) => {
    waiting.push({ entry, settle: (error) => (error === undefined ? resolve() : reject(error)) });
    if (!writing) void writeWaiting();
  });
}

async function writeWaiting() {
  writing = true;
  try {
    while (waiting.length > 0) {
      const group = waiting.splice(0, GROUP_LIMIT);
      let failure: unknown;
      try {
        await storeRefusals(
          poolSql(),
          group.map(({ entry }) => entry),
        );
      } catch (error) {
        failure = error ?? new Error("storing the guard's refusals failed");
      }
      for (const { settle } of group) settle(failure);
    }
  } finally {
    writing = false;
  }
}
