import { createHash } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { partitionOfWeek, weekStart } from "@/lib/server/db/retention-partitions";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { laterSnapshot, rebased } from "@/tests/support/dashboard-records";
import { legacyRecord } from "@/tests/support/record-builders";
import { createTestDatabase } from "@/tests/support/test-database";

// Retention by the server's own background job, on real PostgreSQL: data is written first with retention off, then
// an instance with it on prunes. Old chains go with their records, history and operator evidence; firing chains and
// chains in open triage stay; resolved alerts and finished deliveries go by their own setting; a week no kept chain
// shares is dropped whole, a week one does keeps its records.
const DAY = 24 * 60 * 60_000;
const now = Date.now();
const RETENTION_ENV = {
  RECEIPT_RETENTION: "1",
  RECEIPT_RETENTION_DAYS: "30",
  RECEIPT_ALERT_RETENTION_DAYS: "90",
  RECEIPT_RETENTION_TICK_MS: "200",
  RECEIPT_RETENTION_BATCH: "7",
  RECEIPT_RETENTION_PAUSE_MS: "0",
};
// Two apps start one after the other on a shared machine: each may take longer than startApp's default to answer.
const APP_START_MS = 120_000;
// Two old weeks with partitions of their own (made here: the job only makes weeks ahead).
const droppedWeek = partitionOfWeek(weekStart(new Date(now - 70 * DAY)));
const heldWeek = partitionOfWeek(weekStart(new Date(now - 84 * DAY)));

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let client: pg.Client;
let key: string;
let pruner: RunningApp | undefined;

const record = (tag: string, atMs: number) => rebased(legacyRecord(), atMs, tag);

async function ingest(app: RunningApp, records: unknown[]) {
  const response = await apiClient(app.baseUrl, key).post(records);
  expect(response.status, await response.clone().text()).toBe(200);
}

const ROLLUPS = [
  "chain_rollups",
  "chain_state_rollups",
  "chain_label_rollups",
  "chain_label_set_rollups",
  "chain_rollups_daily",
  "problem_rollups",
  "problem_rollups_daily",
];

/** Rollup rows holding no chain whose bucket began past the record cutoff (30 days), in every rollup. */
async function emptiedRollupRows(): Promise<number> {
  let rows = 0;
  for (const table of ROLLUPS) {
    rows += await count(`${table} where chains = 0 and bucket < now() - interval '31 days'`);
  }
  return rows;
}

async function count(sqlText: string, values: unknown[] = []): Promise<number> {
  const { rows } = await client.query<{ n: number }>(`select count(*)::int as n from ${sqlText}`, values);
  return rows[0]?.n ?? -1;
}

async function waitFor(probe: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error("timed out waiting for retention");
    await new Promise((r) => setTimeout(r, 200));
  }
}

const LIVE_SESSION_TOKEN = "live-session-token";

const chainIds = (tag: string) => `${legacyRecord().chainId}:${tag}`;

beforeAll(async () => {
  db = await createTestDatabase();
  key = await createTestKey(db.url, "agent", ["ingest", "read"]);
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  for (const week of [droppedWeek, heldWeek]) {
    await client.query(
      `create table ${week.name} partition of health_records
        for values from ('${week.from.toISOString()}') to ('${week.to.toISOString()}')`,
    );
  }
  const writer = await startApp(db.url, {}, APP_START_MS);
  try {
    const old = now - 60 * DAY;
    await ingest(writer, [
      ...Array.from({ length: 12 }, (_, i) => record(`old-${i}`, old + i * 1000)),
      record("recent", now - DAY),
      record("firing", old),
      record("triaged", old),
      record("triage-resolved", old),
      ...Array.from({ length: 9 }, (_, i) =>
        record(`dropped-week-${i}`, droppedWeek.from.getTime() + DAY + i),
      ),
      record("held-week-pruned", heldWeek.from.getTime() + DAY),
    ]);
    // A chain that began in the held week and goes on now: kept, with its old record.
    const spanning = record("held-week-span", heldWeek.from.getTime() + 2 * DAY);
    await ingest(writer, [spanning]);
    await ingest(writer, [laterSnapshot(spanning, now - DAY - (heldWeek.from.getTime() + 2 * DAY), "now")]);
  } finally {
    await writer.stop();
  }
  await client.query(
    `insert into alerts (fingerprint, chain_id, session_id, state, severity, status, labels, reasons, starts_at)
      values ('fp-firing', $1, 's', 'tool_failed', 'critical', 'firing', '{}', '{}', now())`,
    [chainIds("firing")],
  );
  await client.query(
    `insert into triage_items (chain_id, queue, status) values ($1, 'false_success', 'open'),
      ($2, 'false_success', 'resolved')`,
    [chainIds("triaged"), chainIds("triage-resolved")],
  );
  await client.query(`insert into triage_events (chain_id, actor, action) values ($1, 'ops', 'resolve')`, [
    chainIds("triage-resolved"),
  ]);
  await client.query(
    `insert into operator_effects (chain_id, status, checked_at, actor) values ($1, 'committed', now(), 'ops')`,
    [chainIds("old-0")],
  );
  // Alerts resolved 100 and 10 days ago, each a member of a group.
  for (const [fingerprint, daysAgo] of [
    ["fp-old", 100],
    ["fp-recent", 10],
  ] as const) {
    await client.query(
      `insert into alerts (fingerprint, chain_id, session_id, state, severity, status, labels, reasons, starts_at,
          ends_at)
        values ($1, 'gone-chain', 's', 'tool_failed', 'critical', 'resolved', '{}', '{}', $2, $2)`,
      [fingerprint, new Date(now - daysAgo * DAY)],
    );
    await client.query(`insert into notification_group_members (group_key, fingerprint) values ('g', $1)`, [
      fingerprint,
    ]);
  }
  // Deliveries: finished 100 days ago (go), pending 100 days ago (stays), delivered 10 days ago (stays). The pending
  // one's next attempt is a day away, so the delivery worker leaves it alone.
  for (const [tag, status, daysAgo] of [
    ["old-delivered", "delivered", 100],
    ["old-dead", "dead", 100],
    ["old-pending", "pending", 100],
    ["recent-delivered", "delivered", 10],
  ] as const) {
    const { rows } = await client.query<{ id: string }>(
      `insert into deliveries (group_key, channel, target_index, target_type, url, body, alert_fingerprints, status,
          created_at, next_attempt_at)
        values ($1, 'c', 0, 'webhook', 'http://127.0.0.1:9/', '{}', '{}', $2, $3, now() + interval '1 day')
        returning id`,
      [tag, status, new Date(now - daysAgo * DAY)],
    );
    await client.query(`insert into delivery_attempts (delivery_id, latency_ms) values ($1, 5), ($1, 6)`, [
      rows[0]?.id,
    ]);
  }
  await seedSpansGroupsAndSetAside();
  await seedSessionsAndSignInCounts();
  await seedOperations();
  pruner = await startApp(db.url, RETENTION_ENV, APP_START_MS);
  await waitFor(
    async () =>
      (await count("pg_class where relname = $1", [droppedWeek.name])) === 0 &&
      (await count("chains where chain_id like $1", [`%:old-%`])) === 0 &&
      (await count(`${heldWeek.name}`)) === 1 &&
      (await count("otlp_spans where session_key = 'idle'")) === 0 &&
      (await count("otlp_refusals where code = 'old_code'")) === 0 &&
      (await count("notification_groups where group_key = 'g-emptied'")) === 0 &&
      (await count("set_aside_items where item_key = 'fp-old'")) === 0 &&
      (await count("user_sessions where expires_at < now()")) === 0 &&
      (await emptiedRollupRows()) === 0 &&
      (await count("sign_in_throttle where key like '%:forgotten'")) === 0 &&
      (await count("operations where operation_key = 'op:forgotten'")) === 0,
  );
}, 400_000);

/**
 * Retry-guard operations 40 days old: one with no chain and no recent question (goes, with its decision), one a kept
 * chain still carries, one asked about yesterday; and one made yesterday.
 */
async function seedOperations() {
  for (const [key, daysAgo] of [
    ["op:forgotten", 40],
    ["op:held", 40],
    ["op:asked-lately", 40],
    ["op:recent", 1],
  ] as const) {
    const at = new Date(now - daysAgo * DAY);
    await client.query(
      `insert into operations (operation_key, tool, lease_holder, lease_granted_at, lease_until, created_at)
        values ($1, 'create_report', 'agent', $2, $2, $2)`,
      [key, at],
    );
    await client.query(
      `insert into operation_decisions (operation_key, decision, status, holder, tool, actor, at)
        values ($1, 'proceed', 'none', 'agent', 'create_report', 'agent', $2)`,
      [key, key === "op:asked-lately" ? new Date(now - DAY) : at],
    );
  }
  await client.query("update chains set operation_key = 'op:held' where chain_id like '%:recent'");
}

/**
 * OTLP spans by session (idle 40 days: go; one old span and one recent: the session stays whole), notification
 * groups (empty and unchanged 100 days: go, with the one emptied by alert pruning; with a firing alert or changed
 * lately: stay) and set-aside items set aside 100 days ago (settled: go; still waiting for a retry: stay).
 */
async function seedSpansGroupsAndSetAside() {
  for (const [traceId, session, daysAgo] of [
    ["t1", "idle", 40],
    ["t2", "idle", 35],
    ["t3", "active", 40],
    ["t4", "active", 1],
    ["t5", "fresh", 1],
  ] as const) {
    await client.query(
      `insert into otlp_spans (trace_id, span_id, session_key, content_hash, span, received_at)
        values ($1, 's', $2, 'h', '{}', $3)`,
      [traceId, session, new Date(now - daysAgo * DAY)],
    );
  }
  for (const [code, daysAgo] of [
    ["old_code", 40],
    ["recent_code", 1],
  ] as const) {
    await client.query("insert into otlp_refusals (bucket, code, spans, exports) values ($1, $2, 3, 1)", [
      new Date(Math.floor((now - daysAgo * DAY) / 3_600_000) * 3_600_000),
      code,
    ]);
  }
  await client.query(
    `insert into notification_group_members (group_key, fingerprint) values ('g-emptied', 'fp-old'),
      ('g-firing', 'fp-firing')`,
  );
  for (const [group, daysAgo] of [
    ["g-emptied", 100],
    ["g-empty", 100],
    ["g-empty-lately", 10],
    ["g-firing", 100],
  ] as const) {
    await client.query(
      `insert into notification_groups (group_key, receiver, route_path, labels, first_seen_at,
          last_sent_fingerprints, updated_at)
        values ($1, 'team', '0', '{}', $2, '{}', $2)`,
      [group, new Date(now - daysAgo * DAY)],
    );
  }
  const { rows } = await client.query<{ current_record_id: string }>(
    "select current_record_id from chains where chain_id = $1",
    [chainIds("recent")],
  );
  const { rows: pending } = await client.query<{ id: string }>(
    "select id::text from deliveries where group_key = 'old-pending'",
  );
  const items: [string, string, string | null, number][] = [
    ["deadline", chainIds("recent"), rows[0]?.current_record_id ?? "", 100],
    ["deadline", chainIds("old-1"), "gone", 100],
    ["alert-routing", "fp-firing", null, 100],
    ["alert-routing", "fp-old", null, 100],
    ["alert-routing", "fp-gone-lately", null, 10],
    ["group-flush", "g-empty", null, 100],
    ["group-flush", "g-firing", null, 100],
    ["delivery", pending[0]?.id ?? "", null, 100],
    ["delivery", "not-a-delivery", null, 100],
  ];
  for (const [job, key, version, daysAgo] of items) {
    await client.query(
      `insert into set_aside_items (job, item_key, item_version, reason, set_aside_at) values ($1, $2, $3, 'x', $4)`,
      [job, key, version, new Date(now - daysAgo * DAY)],
    );
  }
}

/**
 * Sign-in sessions of one user: nine expired (more than a batch: two steps) and one live, whose token signs in; and
 * sign-in throttle counts last added to two days ago (forgotten: go) and an hour ago (stay).
 */
async function seedSessionsAndSignInCounts() {
  const { rows } = await client.query<{ id: string }>(
    "insert into users (id, username, role) values (gen_random_uuid(), 'ops', 'viewer') returning id",
  );
  const userId = rows[0]?.id;
  for (let i = 0; i < 9; i++) {
    await client.query(
      "insert into user_sessions (token_hash, user_id, created_at, expires_at) values ($1, $2, $3, $4)",
      [`expired-${i}`, userId, new Date(now - (20 + i) * DAY), new Date(now - (13 + i) * DAY)],
    );
  }
  await client.query("insert into user_sessions (token_hash, user_id, expires_at) values ($1, $2, $3)", [
    createHash("sha256").update(LIVE_SESSION_TOKEN).digest("hex"),
    userId,
    new Date(now + 6 * DAY),
  ]);
  await client.query(
    `insert into sign_in_throttle (key, failures, last_attempt_at)
      values ('account:forgotten', 3, $1), ('address:forgotten', 5, $1), ('account:recent', 2, $2)`,
    [new Date(now - 2 * DAY), new Date(now - 60 * 60_000)],
  );
}

afterAll(async () => {
  await pruner?.stop();
  await client?.end();
  await db?.drop();
});

describe("retention", () => {
  it("deletes chains older than the setting with their records, history and operator evidence", async () => {
    const old = Array.from({ length: 12 }, (_, i) => chainIds(`old-${i}`));
    expect(await count("chains where chain_id = any($1)", [old])).toBe(0);
    expect(await count("health_records where chain_id = any($1)", [old])).toBe(0);
    expect(await count("chain_state_changes where chain_id = any($1)", [old])).toBe(0);
    expect(await count("operator_effects")).toBe(0);
    expect(await count("chains where chain_id = $1", [chainIds("triage-resolved")])).toBe(0);
  });

  it("keeps recent chains, firing chains and chains in open triage, with their records and history", async () => {
    for (const tag of ["recent", "firing", "triaged", "held-week-span"]) {
      expect(await count("chains where chain_id = $1", [chainIds(tag)]), tag).toBe(1);
      expect(await count("chain_state_changes where chain_id = $1", [chainIds(tag)]), tag).toBeGreaterThan(0);
    }
    expect(await count("health_records where chain_id = $1", [chainIds("held-week-span")])).toBe(2);
    expect(await count("health_records where chain_id = $1", [chainIds("firing")])).toBe(1);
  });

  it("keeps triage items and the audit trail of deleted chains", async () => {
    expect(await count("triage_items where chain_id = $1", [chainIds("triage-resolved")])).toBe(1);
    expect(await count("triage_events where chain_id = $1", [chainIds("triage-resolved")])).toBe(1);
  });

  it("drops a week no kept chain shares, and deletes only pruned chains' rows in a week one does", async () => {
    expect(await count("pg_class where relname = $1", [droppedWeek.name])).toBe(0);
    expect(await count("pg_class where relname = $1", [heldWeek.name])).toBe(1);
    const { rows } = await client.query<{ chain_id: string }>(`select chain_id from ${heldWeek.name}`);
    expect(rows.map((row) => row.chain_id)).toEqual([chainIds("held-week-span")]);
    // Weeks ahead are made by the job (and at migration): this one and four after it.
    const ahead = partitionOfWeek(weekStart(new Date(now + 28 * DAY)));
    expect(await count("pg_class where relname = $1", [ahead.name])).toBe(1);
  });

  it("deletes resolved alerts and finished deliveries by their own setting, with members and attempts", async () => {
    const { rows: alerts } = await client.query<{ fingerprint: string }>(
      "select fingerprint from alerts order by 1",
    );
    expect(alerts.map((row) => row.fingerprint)).toEqual(["fp-firing", "fp-recent"]);
    const { rows: members } = await client.query<{ fingerprint: string }>(
      "select fingerprint from notification_group_members order by 1",
    );
    expect(members.map((row) => row.fingerprint)).toEqual(["fp-firing", "fp-recent"]);
    const { rows: deliveries } = await client.query<{ group_key: string }>(
      "select group_key from deliveries order by 1",
    );
    expect(deliveries.map((row) => row.group_key)).toEqual(["old-pending", "recent-delivered"]);
    expect(await count("delivery_attempts")).toBe(4);
  });

  it("deletes an idle OTLP session's spans, and keeps every span of a session still receiving them", async () => {
    const { rows } = await client.query<{ trace_id: string }>("select trace_id from otlp_spans order by 1");
    expect(rows.map((row) => row.trace_id)).toEqual(["t3", "t4", "t5"]);
  });

  it("forgets the counts of OTLP refusals as old as the spans it deletes", async () => {
    const { rows } = await client.query<{ code: string }>("select code from otlp_refusals order by 1");
    expect(rows.map((row) => row.code)).toEqual(["recent_code"]);
  });

  it("deletes notification groups left empty and unchanged, and keeps groups with a firing alert", async () => {
    const { rows } = await client.query<{ group_key: string }>(
      "select group_key from notification_groups order by 1",
    );
    expect(rows.map((row) => row.group_key)).toEqual(["g-empty-lately", "g-firing"]);
  });

  it("deletes settled set-aside items and keeps those still waiting for a retry", async () => {
    const { rows } = await client.query<{ job: string; item_key: string }>(
      "select job, item_key from set_aside_items order by 1, 2",
    );
    const { rows: pending } = await client.query<{ id: string }>(
      "select id::text from deliveries where group_key = 'old-pending'",
    );
    expect(rows.map((row) => `${row.job} ${row.item_key}`)).toEqual([
      "alert-routing fp-firing",
      "alert-routing fp-gone-lately",
      `deadline ${chainIds("recent")}`,
      `delivery ${pending[0]?.id}`,
      "group-flush g-firing",
    ]);
  });

  it("deletes expired sign-in sessions and keeps the live one, which still signs in", async () => {
    expect(await count("user_sessions")).toBe(1);
    const response = await fetch(`${pruner?.baseUrl}/api/auth/me`, {
      headers: { cookie: `receipt_session=${LIVE_SESSION_TOKEN}` },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ user: { username: "ops", role: "viewer" } });
  });

  it("deletes the rollup rows pruned chains emptied, keeps the rows of kept chains, and the rollups still count", async () => {
    // Pruning and folding go on in the app: once every delta is folded, retention's next steps leave no emptied row.
    await waitFor(
      async () => (await count("chain_rollup_deltas")) === 0 && (await emptiedRollupRows()) === 0,
    );
    // The old chains kept (firing, in open triage) are still counted in their old hour, in every rollup that has them.
    const oldHour = "bucket < now() - interval '31 days' and chains > 0";
    for (const table of [
      "chain_rollups",
      "chain_state_rollups",
      "chain_label_rollups",
      "chain_label_set_rollups",
      "chain_rollups_daily",
    ]) {
      expect(await count(`${table} where ${oldHour}`), table).toBeGreaterThan(0);
    }
    const { diffChainRollups } = await import("@/lib/server/db/chain-rollup-check");
    const sql = {
      query: async (text: string, values: unknown[] = []) => (await client.query(text, values)).rows,
      execute: async (text: string, values: unknown[] = []) =>
        (await client.query(text, values)).rowCount ?? 0,
    };
    await client.query("begin isolation level repeatable read");
    const differences = await diffChainRollups(sql as never);
    await client.query("commit");
    expect(differences).toEqual([]);
  });

  it("forgets a retry-guard operation untouched past the cutoff with no chain left, and keeps the others", async () => {
    const kept = await client.query<{ operation_key: string }>(
      "select operation_key from operations order by 1",
    );
    expect(kept.rows.map((row) => row.operation_key)).toEqual(["op:asked-lately", "op:held", "op:recent"]);
    const decisions = await client.query<{ operation_key: string }>(
      "select distinct operation_key from operation_decisions order by 1",
    );
    expect(decisions.rows.map((row) => row.operation_key)).toEqual([
      "op:asked-lately",
      "op:held",
      "op:recent",
    ]);
  });

  it("deletes sign-in throttle counts nobody added to for a day and keeps recent ones", async () => {
    const { rows } = await client.query<{ key: string }>("select key from sign_in_throttle order by 1");
    expect(rows.map((row) => row.key)).toEqual(["account:recent"]);
  });
});
