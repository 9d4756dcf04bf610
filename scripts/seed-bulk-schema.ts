// What the bulk seed changes around its load, and puts back: secondary indexes and foreign keys (built once after the
// load, cheaper than a row at a time), checkpoint spacing, and `wal_level = minimal` on a cluster the caller restarts.
import type pg from "pg";

export const LOADED_TABLES = ["health_records", "chains", "chain_state_changes"] as const;

export type SchemaPiece = { table: string; name: string; definition: string };

/** Indexes that back no constraint, and foreign keys of the loaded tables: dropped for the load. */
export async function dropIndexesAndForeignKeys(
  client: pg.Client,
): Promise<{ indexes: SchemaPiece[]; foreignKeys: SchemaPiece[] }> {
  const indexes = (
    await client.query<SchemaPiece>(
      `select i.tablename as table, i.indexname as name, i.indexdef as definition
        from pg_indexes i
        where i.schemaname = current_schema() and i.tablename = any($1::text[])
          and not exists (select 1 from pg_constraint c where c.conindid = (quote_ident(i.indexname))::regclass)`,
      [LOADED_TABLES],
    )
  ).rows;
  const foreignKeys = (
    await client.query<SchemaPiece>(
      `select conrelid::regclass::text as table, conname as name, pg_get_constraintdef(oid) as definition
        from pg_constraint
        where contype = 'f' and conrelid::regclass::text = any($1::text[])`,
      [LOADED_TABLES],
    )
  ).rows;
  for (const key of foreignKeys) {
    await client.query(`alter table ${quoteIdent(key.table)} drop constraint ${quoteIdent(key.name)}`);
  }
  for (const index of indexes) await client.query(`drop index ${quoteIdent(index.name)}`);
  return { indexes, foreignKeys };
}

export async function restoreIndexesAndForeignKeys(
  client: pg.Client,
  pieces: { indexes: SchemaPiece[]; foreignKeys: SchemaPiece[] },
): Promise<void> {
  await client.query("set maintenance_work_mem = '1GB'");
  await client.query("set max_parallel_maintenance_workers = 2");
  // pg_indexes writes a partitioned table's index as `ON ONLY`, which builds it on the parent alone, invalid and
  // used by no query; without ONLY it is built on every partition and attached.
  for (const index of pieces.indexes) await client.query(index.definition.replace(" ON ONLY ", " ON "));
  for (const key of pieces.foreignKeys) {
    await client.query(
      `alter table ${quoteIdent(key.table)} add constraint ${quoteIdent(key.name)} ${key.definition}`,
    );
  }
}

/**
 * For the load only: fewer checkpoints (each makes the next write of every page go to WAL whole) and no full pages in
 * WAL. A crash during the load leaves a set to seed again; `relaxed = false` puts the defaults back.
 */
export async function relaxDurability(client: pg.Client, relaxed: boolean): Promise<void> {
  const settings = { max_wal_size: "'8GB'", checkpoint_timeout: "'30min'", full_page_writes: "off" };
  for (const [name, value] of Object.entries(settings)) {
    await client.query(relaxed ? `alter system set ${name} = ${value}` : `alter system reset ${name}`);
  }
  await client.query("select pg_reload_conf()");
}

/**
 * `wal_level = minimal` lets COPY into a table truncated in the same transaction skip WAL altogether (PostgreSQL's
 * "Populating a Database"). Takes effect at the next restart, which the caller owning the cluster does.
 */
export async function setMinimalWal(client: pg.Client, minimal: boolean): Promise<void> {
  if (minimal) {
    await client.query("alter system set wal_level = 'minimal'");
    await client.query("alter system set max_wal_senders = 0");
  } else {
    await client.query("alter system reset wal_level");
    await client.query("alter system reset max_wal_senders");
  }
}

/** A partitioned table takes no COPY FREEZE. */
export async function isPartitioned(client: pg.Client, table: string): Promise<boolean> {
  const { rows } = await client.query("select relkind from pg_class where oid = $1::regclass", [table]);
  return rows[0]?.relkind === "p";
}

export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;
