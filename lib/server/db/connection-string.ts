import path from "node:path";
import { readEnv } from "../env";
import { type RunningDatabase, startEmbeddedPostgres } from "./embedded";

const projectRoot = path.resolve(import.meta.dirname, "../../..");

/** Where the embedded cluster lives; RECEIPT_DATA_DIR moves it (tests use throwaway folders). */
export function embeddedDataDir(): string {
  return path.resolve(readEnv().RECEIPT_DATA_DIR ?? path.join(projectRoot, ".data"), "pg");
}

/**
 * The one way every entry point (app, CLIs, scripts) finds its database: DATABASE_URL when set,
 * otherwise the embedded PostgreSQL under .data/pg, shared with the running app.
 */
export async function openDatabase(): Promise<RunningDatabase> {
  const env = readEnv();
  if (env.DATABASE_URL) {
    const url = env.DATABASE_URL;
    return {
      url,
      serverUrl: (database) => {
        const u = new URL(url);
        u.pathname = `/${database}`;
        return u.toString();
      },
      stop: async () => {},
      startedHere: false,
      postmasterPid: null,
      ownerPid: null,
    };
  }
  return startEmbeddedPostgres(embeddedDataDir());
}
