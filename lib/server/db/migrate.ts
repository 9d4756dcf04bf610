import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { withSchemaEngine } from "./schema-engine";

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

/** Applies every pending migration and records it in `_prisma_migrations`; returns the names applied now. */
export async function applyMigrations(connectionString: string): Promise<string[]> {
  return withSchemaEngine(connectionString, readFileSync(schemaPath, "utf8"), async (engine) => {
    const output = await engine.applyMigrations({ migrationsList: readMigrations(), filters: noFilters });
    return output.appliedMigrationNames;
  });
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
