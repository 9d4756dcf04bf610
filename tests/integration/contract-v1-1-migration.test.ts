import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { classify } from "@/lib/classifier";
import { evaluateCall } from "@/lib/classifier/request-rules";
import type { Call, HealthRecord } from "@/lib/contract";
import { rebuildChainRollups } from "@/lib/server/db/chain-rollups";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { createTestDatabase } from "@/tests/support/test-database";
import { buildCall, modernRecord, t } from "@/tests/support/record-builders";

// Contract v1.1: a state decided by the call's own error (rules 2 and 7) carries no `shadowed`. Results stored before
// v1.1 carry one; the migration clears it, and only it, so stats and queues agree with the classifier.
const migrationsDir = path.resolve(import.meta.dirname, "../../prisma/migrations");
const migrationFolder = readdirSync(migrationsDir).find((name) =>
  name.endsWith("_contract_v1_1_no_restated_shadowed"),
);
const migrationSql = readFileSync(
  path.join(migrationsDir, migrationFolder ?? "missing", "migration.sql"),
  "utf8",
);

const SHADOWABLE = new Set(["protocol_error", "tool_failed", "effect_unknown", "false_success"]);

/** What a v1.0 classifier stored as `shadowed`: the request layer behind every session or catalog state. */
function v10Shadowed(record: HealthRecord): { state: string; reason: string } | null {
  const result = classify(record);
  if (record.call === undefined || !["session", "catalog"].includes(result.layer)) return null;
  const behind = evaluateCall(record.call, Date.parse(record.observedAt));
  const [reason] = behind.reasons;
  return SHADOWABLE.has(behind.state) && reason !== undefined ? { state: behind.state, reason } : null;
}

const errorResponse = (code: number) => (c: Call) => {
  delete c.task;
  c.response = { at: t(1_000), kind: "error", error: { code, class: "refused" } };
};
const failedTask = (code: number) => (c: Call) => {
  c.response = { at: t(1_000), kind: "result", resultType: "task" };
  c.task = { id: "task:1", status: "failed", updatedAt: t(5_000), error: { code, class: "refused" } };
};

/** One chain per case; `cleared` says whether v1.1 drops the v1.0 `shadowed`. */
const cases: { name: string; cleared: boolean; record: HealthRecord }[] = [
  { name: "rule2-response", cleared: true, record: buildCall(errorResponse(-32042)) },
  { name: "rule2-task", cleared: true, record: buildCall(failedTask(-32042), modernRecord) },
  { name: "rule7-32021-response", cleared: true, record: buildCall(errorResponse(-32021)) },
  { name: "rule7-32022-response", cleared: true, record: buildCall(errorResponse(-32022), modernRecord) },
  { name: "rule7-32021-task", cleared: true, record: buildCall(failedTask(-32021), modernRecord) },
  { name: "rule7-32022-task", cleared: true, record: buildCall(failedTask(-32022), modernRecord) },
  {
    name: "rule1-before-32042",
    cleared: false,
    record: buildCall((c, r) => {
      r.session.auth = { challenge: { status: 401, at: t(-500) } };
      errorResponse(-32042)(c);
    }),
  },
  {
    name: "rule4-before-32022",
    cleared: false,
    record: buildCall((c, r) => {
      r.session.protocol.acceptedVersion = "2024-11-05";
      errorResponse(-32022)(c);
    }),
  },
  {
    name: "rule6-before-32021",
    cleared: false,
    record: buildCall((c, r) => {
      r.session.capabilities.required.server = [...r.session.capabilities.required.server, "prompts"];
      errorResponse(-32021)(c);
    }),
  },
  {
    name: "catalog-before-server-error",
    cleared: false,
    record: buildCall((c, r) => {
      delete r.catalog;
      errorResponse(-32603)(c);
    }),
  },
];

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let client: pg.Client;
let api: ReturnType<typeof apiClient>;

const stored = async (chainId: string) => {
  const { rows } = await client.query<{
    r_state: string | null;
    r_reason: string | null;
    c_state: string | null;
  }>(
    `select r.shadowed_state as r_state, r.shadowed_reason as r_reason, c.shadowed_state as c_state
       from health_records r join chains c on c.current_seq = r.seq where r.chain_id = $1`,
    [chainId],
  );
  return rows[0];
};

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startApp(db.url);
  api = apiClient(app.baseUrl, await createTestKey(db.url, "agent", ["ingest", "read"]));
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  await app?.stop();
  await db?.drop();
});

/**
 * Stats read the chain rollups, which only the app's writers keep: after this file's direct SQL on `chains` (an old
 * database, a data migration), they are recounted, as `npm run rollups -- rebuild` does.
 */
async function rebuildRollups() {
  const text = (statement: string | { text: string }) =>
    typeof statement === "string" ? statement : statement.text;
  await client.query("begin");
  await rebuildChainRollups({
    query: async (statement, values = []) => (await client.query(text(statement), [...values])).rows,
    execute: async (statement, values = []) =>
      (await client.query(text(statement), [...values])).rowCount ?? 0,
  });
  await client.query("commit");
}

describe("contract v1.1 migration", () => {
  it("ingestion already stores no restated shadowed, and keeps the others", async () => {
    const records = cases.map(({ name, record }) => ({
      ...record,
      recordId: `rec:${name}`,
      chainId: `chain:${name}`,
    }));
    const response = await api.post(records);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { results: { shadowed?: unknown }[] };
    cases.forEach(({ cleared, record }, i) => {
      expect(v10Shadowed(record)).not.toBeNull(); // every case had a v1.0 shadowed: none is vacuous
      expect(body.results[i]?.shadowed ?? null).toEqual(cleared ? null : v10Shadowed(record));
    });
  });

  it("clears the v1.0 shadowed of rules 2 and 7 on records and chains, and nothing else", async () => {
    // Put back what a v1.0 server stored, as the migration will find it on an existing database.
    for (const { name, record } of cases) {
      const old = v10Shadowed(record);
      for (const table of ["health_records", "chains"]) {
        await client.query(
          `update ${table} set shadowed_state = $1, shadowed_reason = $2 where chain_id = $3`,
          [old?.state, old?.reason, `chain:${name}`],
        );
      }
    }
    await rebuildRollups();
    const before = (await (await api.get("/api/v1/stats")).json()) as { shadowed: Record<string, number> };
    expect(before.shadowed.tool_failed).toBe(cases.length);

    await client.query(migrationSql);
    await rebuildRollups();

    for (const { name, cleared, record } of cases) {
      const row = await stored(`chain:${name}`);
      const expected = cleared ? null : v10Shadowed(record);
      expect({ name, state: row?.r_state, reason: row?.r_reason, chain: row?.c_state }).toEqual({
        name,
        state: expected?.state ?? null,
        reason: expected?.reason ?? null,
        chain: expected?.state ?? null,
      });
    }
    const after = (await (await api.get("/api/v1/stats")).json()) as { shadowed: Record<string, number> };
    expect(after.shadowed.tool_failed).toBe(cases.filter((c) => !c.cleared).length);
  });

  it("a body jsonb cannot read keeps its stored result instead of stopping the migration", async () => {
    const { name } = cases[2] as (typeof cases)[number];
    await client.query(
      `update health_records set shadowed_state = 'tool_failed', shadowed_reason = 'request.server_error',
         body = $1::json where chain_id = $2`,
      ['{"session":{"capabilities":{"server":["\\u0000"]}}}', `chain:${name}`],
    );
    await client.query(migrationSql);
    expect((await stored(`chain:${name}`))?.r_state).toBe("tool_failed");
  });
});
