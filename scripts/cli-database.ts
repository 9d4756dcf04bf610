// How a CLI opens the app's database (lib/server/db/connection-string.ts): the place `npm start` uses, never one made
// on the spot. Where there is none, one sentence naming the place it looked and what to do, and exit 2 (could not
// run): no stack trace.
import { DatabaseNotFoundError, describeDatabase, openDatabase } from "../lib/server/db/connection-string";
import type { RunningDatabase } from "../lib/server/db/embedded";
import { EnvError } from "../lib/server/env";

export const COULD_NOT_RUN = 2;

/**
 * The app's database, with DATABASE_URL set to it for the code the CLI runs; `where` names it for messages.
 * `announceStart: false` for a caller that refuses a cluster no app runs (it says so itself).
 */
export async function openCliDatabase(
  options: { announceStart?: boolean } = {},
): Promise<RunningDatabase & { where: string }> {
  try {
    const where = describeDatabase();
    const db = await openDatabase();
    process.env.DATABASE_URL = db.url;
    // Joining the app's cluster is the usual case; starting it means no app serves this database right now.
    if (db.startedHere && options.announceStart !== false)
      console.error(`no app is running on ${where}; started it for this command`);
    return { ...db, where };
  } catch (error) {
    if (!(error instanceof DatabaseNotFoundError || error instanceof EnvError)) throw error;
    console.error(error.message);
    process.exit(COULD_NOT_RUN);
  }
}
