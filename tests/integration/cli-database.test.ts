import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createTestDatabase, databaseUrl } from "@/tests/support/test-database";

// Every CLI finds the app's database the way `npm start` does (lib/server/db/connection-string.ts, issue 41 §2 and
// issue 43 §6): where there is none, or it has no Receipt tables, or it is behind this checkout, the CLI exits 2 with
// one sentence naming the place it looked — no Prisma stack trace, no database made on the spot, no success reported.
const root = path.resolve(import.meta.dirname, "../..");
const { DATABASE_URL: _ignored, INIT_CWD: _alsoIgnored, ...envWithoutDatabase } = process.env;
const dataDir = mkdtempSync(path.join(tmpdir(), "receipt-cli-db-"));
const pgDir = path.join(dataDir, "pg");

type Run = { code: number | null; stdout: string; stderr: string };
function run(script: string, args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ["--import", "tsx", `scripts/${script}`, ...args],
      { cwd: root, env: { ...envWithoutDatabase, RECEIPT_NEW_PASSWORD: "long enough 123", ...env } },
      (error, stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

/** What the CLIs print when something other than the expected sentence went wrong. */
function expectNoTrace(result: Run) {
  expect(result.stderr).not.toMatch(/PrismaClient|Prisma|\n\s+at |Error:/);
  expect(result.stdout).toBe("");
}

// Each CLI that reads or writes the app's database, with arguments that would otherwise succeed.
const CLIS: Array<[string, string[]]> = [
  ["keys.ts", ["list"]],
  ["users.ts", ["create", "--username", "ops", "--role", "admin"]],
  ["db-seed.ts", ["--chains", "5"]],
  ["seed-bulk.ts", ["--chains", "10"]],
  ["set-aside.ts", ["list"]],
  ["rollups.ts", ["check"]],
];

let fakeApp: Server;
let emptyDb: { url: string; drop: () => Promise<void> };
let behindDb: Awaited<ReturnType<typeof createTestDatabase>>;
let newestMigration: string;

beforeAll(async () => {
  // An app answering at RECEIPT_URL, as the demo requires before it looks for a database.
  fakeApp = createServer((_request, response) => response.end('{"status":"ok"}'));
  await new Promise<void>((resolve) => fakeApp.listen(0, "127.0.0.1", resolve));

  const admin = new pg.Client({ connectionString: inject("adminUrl") });
  await admin.connect();
  const empty = `receipt_cli_empty_${process.pid}`;
  await admin.query(`create database "${empty}"`);
  await admin.end();
  emptyDb = {
    url: databaseUrl(inject("adminUrl"), empty),
    drop: async () => {
      const client = new pg.Client({ connectionString: inject("adminUrl") });
      await client.connect();
      await client.query(`drop database if exists "${empty}" with (force)`);
      await client.end();
    },
  };

  // A database an older checkout migrated: this checkout's newest migration is not applied there.
  behindDb = await createTestDatabase();
  const client = new pg.Client({ connectionString: behindDb.url });
  await client.connect();
  const newest = await client.query<{ name: string }>(
    "delete from _prisma_migrations where migration_name = (select max(migration_name) from _prisma_migrations) returning migration_name as name",
  );
  newestMigration = newest.rows[0]?.name as string;
  await client.end();
});
afterAll(async () => {
  fakeApp?.close();
  await emptyDb?.drop();
  await behindDb?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("no database where the CLI looks", () => {
  it("every CLI names the folder it looked in, exits 2 and makes no database there", async () => {
    const results = await Promise.all(
      CLIS.map(([script, args]) => run(script, args, { RECEIPT_DATA_DIR: dataDir })),
    );
    for (const [i, result] of results.entries()) {
      expect(result.code, CLIS[i]?.join(" ")).toBe(2);
      expect(result.stderr).toBe(
        `no Receipt database in ${pgDir}: start the app once with \`npm start\` (or set DATABASE_URL / RECEIPT_DATA_DIR to the app's)\n`,
      );
      expectNoTrace(result);
    }
    expect(existsSync(pgDir)).toBe(false);
  }, 30_000);

  it("a relative RECEIPT_DATA_DIR is taken from where the command was typed (npm's INIT_CWD)", async () => {
    const result = await run("keys.ts", ["list"], {
      RECEIPT_DATA_DIR: "receipt-data",
      INIT_CWD: dataDir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`no Receipt database in ${path.join(dataDir, "receipt-data", "pg")}:`);
  });

  it("the demo, beside an app that answers, refuses before creating a key anywhere", async () => {
    const { port } = fakeApp.address() as AddressInfo;
    const result = await run("demo.ts", [], {
      RECEIPT_URL: `http://127.0.0.1:${port}`,
      RECEIPT_DATA_DIR: dataDir,
      RECEIPT_KEY: "",
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `no Receipt database in ${pgDir}: start the app once with \`npm start\` (or set DATABASE_URL / RECEIPT_DATA_DIR to the app's)\n`,
    );
    expect(existsSync(pgDir)).toBe(false);
  });
});

describe("a database at DATABASE_URL that is not the app's", () => {
  it("without Receipt tables: named without its password, nothing written", async () => {
    const shown = new URL(emptyDb.url);
    shown.password = "";
    const [keys, seed] = await Promise.all([
      run("keys.ts", ["create", "--name", "agent"], { DATABASE_URL: emptyDb.url }),
      run("db-seed.ts", ["--chains", "5"], { DATABASE_URL: emptyDb.url }),
    ]);
    for (const result of [keys, seed]) {
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        `the database at DATABASE_URL (${shown}) has no Receipt tables: start the app once with \`npm start\` (or set DATABASE_URL / RECEIPT_DATA_DIR to the app's)\n`,
      );
      expectNoTrace(result);
    }
    expect(keys.stderr).not.toContain(new URL(emptyDb.url).password);
    const client = new pg.Client({ connectionString: emptyDb.url });
    await client.connect();
    const tables = await client.query("select count(*)::int as n from pg_tables where schemaname = 'public'");
    await client.end();
    expect(tables.rows[0]?.n).toBe(0); // the seed did not migrate a stranger's database
  });

  it("behind this checkout's migrations: says which, and how to apply them", async () => {
    const result = await run("users.ts", ["create", "--username", "ops"], { DATABASE_URL: behindDb.url });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      new RegExp(
        `^the database at DATABASE_URL \\(.*\\) lacks 1 of this checkout's migrations \\(${newestMigration} the newest\\): start the app with \`npm start\`, or run \`npm run db:migrate\`, to apply them\\n$`,
      ),
    );
    expectNoTrace(result);
  });

  it("unreachable: names it and the reason", async () => {
    const result = await run("set-aside.ts", ["list"], {
      DATABASE_URL: "postgresql://receipt:secret-pw@127.0.0.1:1/receipt",
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^cannot reach the database at DATABASE_URL \(postgresql:\/\/receipt@127\.0\.0\.1:1\/receipt\) \(.*ECONNREFUSED.*\): start that server, or correct DATABASE_URL \(unset, the embedded database under RECEIPT_DATA_DIR is used\)\n$/,
    );
    expect(result.stderr).not.toContain("secret-pw");
  });
});
