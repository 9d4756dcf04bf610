import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { installKeyChangeNotifications } from "./ingestion-key-changes";
import { ensureRecordPartitions } from "./retention-partitions";
import { withSchemaEngine } from "./schema-engine";
import { assertSupportedServerVersion } from "./server-version";
import { sqlOver, transactionOver } from "./sql";

const projectRoot = path.resolve(import.meta.dirname, "../../..");
export const schemaPath = path.join(projectRoot, "prisma/schema.prisma");
export const migrationsDir = path.join(projectRoot, "prisma/migrations");

const noFilters = { externalTables: [], externalEnums: [] };

/** Reads prisma/migrations exactly as `prisma migrate deploy` does: one folder per migration, in name order. */
export function readMigrations() {
  const lockPath = path.join(migrationsDir, "migration_lock.toml");
  const folders = existsSync(migrationsDir)
    ? readdirSync(migrationsDir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort()
    : [];
  return {
    baseDir: migrationsDir,
    lockfile: {
      path: "migration_lock.toml",
      content: existsSync(lockPath) ? readFileSync(lockPath, "utf8") : null,
    },
    shadowDbInitScript: "",
    migrationDirectories: folders.map((folder) => ({
      path: folder,
      migrationFile: {
        path: "migration.sql",
        content: {
          tag: "ok" as const,
          value: readFileSync(path.join(migrationsDir, folder, "migration.sql"), "utf8"),
        },
      },
    })),
  };
}

/**
 * Applies every pending migration and records it in `_prisma_migrations`, then makes the weekly record partitions
 * due now (a migration's SQL is fixed text and cannot name this week's) and installs the ingestion-key triggers
 * (ingestion-key-changes.ts); returns the migrations applied now.
 * Refuses (UnsupportedServerVersionError) a server older than PostgreSQL 18, before changing anything.
 * `through` stops at that migration, partitions left out (tests of a data migration start from the schema before it).
 */
export async function applyMigrations(
  connectionString: string,
  options: { through?: string } = {},
): Promise<string[]> {
  const { through } = options;
  await assertSupportedServerVersion(connectionString); // before any DDL: an old server must be left untouched
  const migrations = readMigrations();
  if (through) {
    migrations.migrationDirectories = migrations.migrationDirectories.filter((dir) => dir.path <= through);
  }
  const applied = await withSchemaEngine(
    connectionString,
    readFileSync(schemaPath, "utf8"),
    async (engine) => {
      const output = await engine.applyMigrations({ migrationsList: migrations, filters: noFilters });
      return output.appliedMigrationNames;
    },
  );
  if (!through) await afterMigrations(connectionString);
  return applied;
}

/** What a migration cannot hold: this week's record partitions, the ingestion-key triggers. */
async function afterMigrations(connectionString: string): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await ensureRecordPartitions(transactionOver(client), new Date(), sqlOver(client));
    await installKeyChangeNotifications(client);
  } finally {
    await client.end();
  }
}

/** SQL that turns the schema of `fromDatamodel` (or an empty database) into prisma/schema.prisma. */
export async function diffSchemaSql(connectionString: string, fromDatamodel: string | null): Promise<string> {
  const target = readFileSync(schemaPath, "utf8");
  return withSchemaEngine(connectionString, target, async (engine) => {
    const from = fromDatamodel
      ? { tag: "schemaDatamodel" as const, files: [{ path: "schema.prisma", content: fromDatamodel }] }
      : { tag: "empty" as const };
    const result = await engine.diff({
      from,
      to: { tag: "schemaDatamodel", files: [{ path: "schema.prisma", content: target }] },
      script: true,
      exitCode: null,
      filters: noFilters,
    });
    return result.stdout ?? "";
  });
}
