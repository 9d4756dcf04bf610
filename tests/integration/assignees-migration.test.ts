import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { applyMigrations } from "@/lib/server/db/migrate";
import { databaseUrl } from "@/tests/support/test-database";

// Free-text owners from before assignees were users: one that is a username becomes that user; any other text
// stays readable as the item's former owner, markup and all, never dropped.
const PREVIOUS_MIGRATION = "20261202051833_teams_users_roles_audit";
const adminUrl = inject("adminUrl");
const dbName = `receipt_assignees_${randomBytes(6).toString("hex")}`;
const url = databaseUrl(adminUrl, dbName);
let client: pg.Client;
const HOSTILE = "<script>alert(1)</script>;DROP TABLE users";

async function withAdmin(statement: string) {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

let anaId = "";
beforeAll(async () => {
  await withAdmin(`create database "${dbName}"`);
  await applyMigrations(url, { through: PREVIOUS_MIGRATION });
  client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ id: string }>(
    "insert into users (id, username, role) values (gen_random_uuid(), 'ana', 'responder') returning id::text",
  );
  anaId = rows[0]?.id ?? "";
  // The previous migration's shape: a free-text owner column.
  await client.query(
    `insert into triage_items (chain_id, queue, status, owner) values
      ('chain:by-name', 'false_success', 'acknowledged', 'ana'),
      ('chain:team', 'false_success', 'open', 'reports-team'),
      ('chain:hostile', 'effect_unknown', 'open', $1),
      ('chain:nobody', 'effect_unknown', 'resolved', null)`,
    [HOSTILE],
  );
  await applyMigrations(url);
}, 120_000);

afterAll(async () => {
  await client?.end();
  await withAdmin(`drop database if exists "${dbName}" with (force)`);
});

describe("migrating free-text owners", () => {
  it("a username becomes its user; other text stays as the former owner; nothing else changes", async () => {
    const { rows } = await client.query(
      `select chain_id, status, assignee_user_id::text, former_owner from triage_items order by chain_id`,
    );
    expect(rows).toEqual([
      { chain_id: "chain:by-name", status: "acknowledged", assignee_user_id: anaId, former_owner: null },
      { chain_id: "chain:hostile", status: "open", assignee_user_id: null, former_owner: HOSTILE },
      { chain_id: "chain:nobody", status: "resolved", assignee_user_id: null, former_owner: null },
      { chain_id: "chain:team", status: "open", assignee_user_id: null, former_owner: "reports-team" },
    ]);
  });

  it("deleting a user leaves their items unassigned, not deleted", async () => {
    await client.query("delete from users where id = $1", [anaId]);
    const { rows } = await client.query(
      "select assignee_user_id from triage_items where chain_id = 'chain:by-name'",
    );
    expect(rows).toEqual([{ assignee_user_id: null }]);
  });
});
