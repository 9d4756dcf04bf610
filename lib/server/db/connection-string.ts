import path from "node:path";
import { readEnv } from "../env";
import { type RunningDatabase, startEmbeddedPostgres } from "./embedded";

const projectRoot = path.resolve(import.meta.dirname, "../../..");

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
    };
  }
  return startEmbeddedPostgres(path.join(projectRoot, ".data/pg"));
}
