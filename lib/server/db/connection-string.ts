import { existsSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { readEnv } from "../env";
import { type RunningDatabase, startEmbeddedPostgres } from "./embedded";
import { readMigrations } from "./migrate";

const projectRoot = path.resolve(import.meta.dirname, "../../..");

/**
 * Where the embedded cluster lives; RECEIPT_DATA_DIR moves it (tests use throwaway folders). A relative
 * RECEIPT_DATA_DIR is taken from the directory the command was typed in (npm runs scripts from the project root and
 * says where it was called from in INIT_CWD), so `npm start` and every CLI typed there find the same folder.
 */
export function embeddedDataDir(): string {
  const configured = readEnv().RECEIPT_DATA_DIR;
  if (!configured) return path.join(projectRoot, ".data", "pg");
  return path.resolve(process.env.INIT_CWD ?? process.cwd(), configured, "pg");
}

/** The database as a person would name it: DATABASE_URL without its password, or the embedded cluster's folder. */
export function describeDatabase(): string {
  const url = readEnv().DATABASE_URL;
  if (!url) return `the embedded database in ${embeddedDataDir()}`;
  if (!URL.canParse(url)) return "the database at DATABASE_URL";
  const shown = new URL(url);
  shown.password = "";
  shown.searchParams.delete("password"); // libpq also takes it as a parameter
  return `the database at DATABASE_URL (${shown.toString()})`;
}

/** No Receipt database where this command looked: its message is the one sentence a CLI prints. */
export class DatabaseNotFoundError extends Error {}

const HOW_TO_CREATE =
  "start the app once with `npm start` (or set DATABASE_URL / RECEIPT_DATA_DIR to the app's)";

/**
 * The one way every entry point (app, CLIs, scripts) finds its database: DATABASE_URL when set, otherwise the
 * embedded PostgreSQL under $RECEIPT_DATA_DIR/pg (default .data/pg), joined when the app runs it and started for the
 * command otherwise. Only `create` (the launcher, `db:migrate`, scripts on throwaway folders) makes a cluster where
 * there is none; every other caller needs the database `npm start` made and migrated, and gets a
 * DatabaseNotFoundError naming the place it looked when there is none, it has no Receipt tables, or it is behind
 * this checkout's migrations — never a database made on the spot that the app does not use.
 */
export async function openDatabase(options: { create?: boolean } = {}): Promise<RunningDatabase> {
  const env = readEnv();
  const db = env.DATABASE_URL ? externalDatabase(env.DATABASE_URL) : await openEmbedded(options.create);
  if (options.create) return db;
  try {
    await assertReceiptSchema(db.url);
  } catch (error) {
    await db.stop();
    throw error;
  }
  return db;
}

function externalDatabase(url: string): RunningDatabase {
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

async function openEmbedded(create = false): Promise<RunningDatabase> {
  const dataDir = embeddedDataDir();
  if (!create && !existsSync(path.join(dataDir, "PG_VERSION")))
    throw new DatabaseNotFoundError(`no Receipt database in ${dataDir}: ${HOW_TO_CREATE}`);
  return startEmbeddedPostgres(dataDir);
}

// Errors that mean the server could not be reached or refused the connection (network, authentication, no such
// database), as opposed to a failing statement.
const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "28000", // invalid_authorization_specification
  "28P01", // invalid_password
  "3D000", // invalid_catalog_name: no such database
]);

/** The sentence for an error met while connecting to the database, or null when the error is something else. */
export function cannotReach(error: unknown): DatabaseNotFoundError | null {
  const { code, message } = error as { code?: string; message?: string };
  const connecting =
    (code !== undefined && CONNECTION_CODES.has(code)) ||
    /timeout expired|Connection terminated unexpectedly/.test(message ?? "");
  if (!connecting) return null;
  return new DatabaseNotFoundError(
    `cannot reach ${describeDatabase()} (${message}): start that server, or correct DATABASE_URL (unset, the embedded database under RECEIPT_DATA_DIR is used)`,
  );
}

/** The database answers, holds Receipt's tables, and has every migration of this checkout applied. */
async function assertReceiptSchema(url: string): Promise<void> {
  const where = describeDatabase();
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on("error", () => {}); // a connection the server ends mid-check fails the query below instead
  let applied: Set<string>;
  try {
    await client.connect();
    const table = await client.query<{ found: string | null }>(
      "select to_regclass('_prisma_migrations')::text as found",
    );
    if (!table.rows[0]?.found)
      throw new DatabaseNotFoundError(`${where} has no Receipt tables: ${HOW_TO_CREATE}`);
    const rows = await client.query<{ name: string }>(
      "select migration_name as name from _prisma_migrations where finished_at is not null and rolled_back_at is null",
    );
    applied = new Set(rows.rows.map((row) => row.name));
  } catch (error) {
    throw error instanceof DatabaseNotFoundError ? error : (cannotReach(error) ?? error);
  } finally {
    await client.end().catch(() => {});
  }
  const pending = readMigrations()
    .migrationDirectories.map((dir) => dir.path)
    .filter((name) => !applied.has(name));
  if (pending.length > 0)
    throw new DatabaseNotFoundError(
      `${where} lacks ${pending.length} of this checkout's migrations (${pending.at(-1)} the newest): ` +
        "start the app with `npm start`, or run `npm run db:migrate`, to apply them",
    );
}
