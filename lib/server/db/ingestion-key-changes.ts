import type pg from "pg";
import type { Sql } from "./sql";

/** The channel every change that may refuse an ingestion key is told on: the key's id, or '' for every key. */
export const KEY_CHANGES_CHANNEL = "receipt_ingestion_keys";

// Every app process keeps the active ingestion keys it has authenticated in memory (lib/server/keys/active-keys.ts)
// and forgets one when told. These triggers tell it of whatever may refuse a key (revoked, its scopes, hash or name
// changed, the row deleted, the table truncated), by whatever path: the API, the CLI, plain SQL.
// Installed after the migrations (applyMigrations), not by one: Prisma's migration runner splits a script at every
// semicolon, which a PL/pgSQL body is full of. Idempotent, so every start may run it.
const INSTALL = `
create or replace function receipt_notify_ingestion_key_change() returns trigger language plpgsql as $$
begin
  perform pg_notify('${KEY_CHANGES_CHANNEL}', case when tg_level = 'ROW' then old.id::text else '' end);
  return null;
end
$$;
create or replace trigger ingestion_keys_changed after update on ingestion_keys for each row
  when (old.revoked_at is distinct from new.revoked_at or old.scopes is distinct from new.scopes
    or old.key_hash is distinct from new.key_hash or old.name is distinct from new.name or old.id is distinct from new.id)
  execute function receipt_notify_ingestion_key_change();
create or replace trigger ingestion_keys_deleted after delete on ingestion_keys for each row
  execute function receipt_notify_ingestion_key_change();
create or replace trigger ingestion_keys_truncated after truncate on ingestion_keys for each statement
  execute function receipt_notify_ingestion_key_change();`;

export async function installKeyChangeNotifications(client: pg.ClientBase): Promise<void> {
  await client.query(INSTALL);
}

const TRIGGERS = ["ingestion_keys_changed", "ingestion_keys_deleted", "ingestion_keys_truncated"];

/** Whether every trigger is in place and enabled: a database the migrations did not run on has none. */
export async function keyChangeNotificationsInstalled(sql: Sql): Promise<boolean> {
  const [row] = await sql.query<{ enabled: number }>(
    `select count(*)::int as enabled from pg_trigger
      where tgrelid = 'ingestion_keys'::regclass and tgname = any($1::text[]) and tgenabled <> 'D'`,
    [TRIGGERS],
  );
  return row?.enabled === TRIGGERS.length;
}
