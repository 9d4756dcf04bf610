import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres } from "@/lib/server/db/embedded";
import { applyMigrations } from "@/lib/server/db/migrate";
import { databaseUrl } from "@/tests/support/test-database";

type Shared = { adminUrl: string; template: string; teardown: () => Promise<void> };

/**
 * Both integration projects ("integration", "integration-env") call this setup in the one Vitest process, at once.
 * They share one server and template: kept on globalThis because each project may load this module anew, and
 * Prisma's migration engine must not run twice at once.
 */
const shared = globalThis as { receiptIntegrationSetup?: { ready: Promise<Shared>; users: number } };

// Integration tests use a real PostgreSQL: the server at DATABASE_URL when set, else a throwaway embedded cluster.
// One migrated template database; each test file clones its own copy from it.
async function prepare(): Promise<Shared> {
  let adminUrl: string;
  let stopServer = async () => {};
  const given = process.env.DATABASE_URL;
  if (given) {
    adminUrl = databaseUrl(given, "postgres");
  } else {
    const dir = mkdtempSync(path.join(tmpdir(), "receipt-it-"));
    // PostgreSQL's default lock table, not the embedded one's larger table: the tests hold the app to what a server
    // at DATABASE_URL gives it out of the box (tests/integration/key-locks.test.ts starts a cluster of each).
    const server = await startEmbeddedPostgres(path.join(dir, "pg"), {
      settings: ["max_locks_per_transaction=64"],
    });
    adminUrl = server.serverUrl("postgres");
    stopServer = async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    };
  }
  const template = `receipt_template_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists "${template}" with (force)`);
  await admin.query(`create database "${template}"`);
  await applyMigrations(databaseUrl(adminUrl, template));
  return {
    adminUrl,
    template,
    teardown: async () => {
      await admin.query(`drop database if exists "${template}" with (force)`).catch(() => {});
      await admin.end();
      await stopServer();
    },
  };
}

export default async function setup(project: TestProject) {
  shared.receiptIntegrationSetup ??= { ready: prepare(), users: 0 };
  const entry = shared.receiptIntegrationSetup;
  entry.users += 1;
  const { adminUrl, template } = await entry.ready;
  project.provide("adminUrl", adminUrl);
  project.provide("templateDatabase", template);

  return async () => {
    entry.users -= 1;
    if (entry.users > 0) return;
    shared.receiptIntegrationSetup = undefined;
    await (await entry.ready).teardown();
  };
}
