import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUDIT_ACTIONS } from "@/lib/audit/audit-actions";
import type { AuditPage } from "@/lib/audit/audit-view";
import { auditEventsPageQuery } from "@/lib/server/db/audit-events";
import { createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { auditTable } from "@/tests/support/audit-events";
import { adminCookie } from "@/tests/support/dashboard-session";
import { createTeamUser, signInCookie } from "@/tests/support/team-users";
import { createTestDatabase } from "@/tests/support/test-database";

// GET /api/v1/audit: who may read it, every filter and every bad filter (exact status, code and path), keyset paging
// that neither repeats nor skips an event while others are written, and plans that read through the indexes.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let audit: ReturnType<typeof auditTable>;
let adminSession: string;
let adminKey: string;

const NOISE_ROWS = 30_000;
const tag = randomUUID().slice(0, 8);
const T = Date.parse("2026-11-30T12:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

// biome-ignore lint/suspicious/noExplicitAny: the tests check the JSON's shape with expect()
async function get(query: string, auth: Record<string, string> = { cookie: adminSession }): Promise<any> {
  const response = await fetch(`${app.baseUrl}/api/v1/audit${query}`, { headers: auth });
  return { status: response.status, json: await response.json() };
}
const page = async (query: string): Promise<AuditPage> => {
  const answer = await get(query);
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  return answer.json;
};

async function insertEvent(actor: string, action: string, targetType: string, targetId: string, at: number) {
  const [row] = await audit.query<{ id: string }>(
    `insert into audit_events (actor, action, target_type, target_id, at, after)
      values ($1, $2, $3, $4, $5::timestamptz, '{"n": 1}') returning id::text`,
    [actor, action, targetType, targetId, iso(at)],
  );
  return row?.id ?? "";
}

beforeAll(async () => {
  db = await createTestDatabase();
  audit = auditTable(db.url);
  adminKey = await createTestKey(db.url, "ci-audit", ["admin"]);
  app = await startApp(db.url);
  adminSession = await adminCookie(app.baseUrl);
  // Enough rows, spread over actors, actions and targets, that the planner prefers the indexes to a scan.
  await audit.query(
    `insert into audit_events (actor, action, target_type, target_id, at)
      select 'noise-' || (n % 400), ($1::text[])[1 + n % array_length($1::text[], 1)], 'chain', 'c-' || (n % 5000),
        $2::timestamptz - n * interval '7 seconds'
      from generate_series(1, $3::int) n`,
    [AUDIT_ACTIONS, iso(T), NOISE_ROWS],
  );
  await audit.query("analyze audit_events");
}, 60_000);
afterAll(async () => {
  await app?.stop();
  await db?.drop();
});

describe("who may read the audit log", () => {
  it("admins and admin keys; responders, viewers and read keys are refused; nobody else", async () => {
    expect((await get("?limit=1")).status).toBe(200);
    expect((await get("?limit=1", { authorization: `Bearer ${adminKey}` })).status).toBe(200);
    const readKey = await createTestKey(db.url, `reader-${tag}`, ["read"]);
    expect(await get("", { authorization: `Bearer ${readKey}` })).toMatchObject({
      status: 403,
      json: { error: { code: "forbidden" } },
    });
    for (const role of ["responder", "viewer"] as const) {
      const user = await createTeamUser(db.url, `${role}-${tag}`, role);
      const cookie = await signInCookie(app.baseUrl, user.username, user.password);
      expect(await get("", { cookie })).toMatchObject({
        status: 403,
        json: { error: { code: "insufficient_role" } },
      });
    }
    expect((await get("", {})).status).toBe(401);
  });
});

describe("filters", () => {
  const ann = `ann-${tag}`;
  const bob = `bob-${tag}`;
  const silence = randomUUID();
  const ids: string[] = [];
  beforeAll(async () => {
    ids.push(await insertEvent(ann, "key.create", "key", `key-${tag}`, T - 3 * 3_600_000));
    ids.push(await insertEvent(ann, "silence.create", "silence", silence, T - 2 * 3_600_000));
    ids.push(await insertEvent(bob, "silence.expire", "silence", silence, T - 3_600_000));
  });
  const idsOf = (answer: AuditPage) => answer.events.map((event) => event.id);

  it("by actor, actions (repeatable), target and time, newest first", async () => {
    const [keyCreate, silenceCreate, silenceExpire] = ids;
    expect(idsOf(await page(`?actor=${ann}`))).toEqual([silenceCreate, keyCreate]);
    expect(idsOf(await page(`?targetType=silence&targetId=${silence}`))).toEqual([
      silenceExpire,
      silenceCreate,
    ]);
    expect(idsOf(await page(`?targetId=${silence}&action=silence.expire`))).toEqual([silenceExpire]);
    expect(
      idsOf(await page(`?targetId=${silence}&action=silence.expire&action=silence.create&actor=${bob}`)),
    ).toEqual([silenceExpire]);
    const window = `since=${iso(T - 2.5 * 3_600_000)}&until=${iso(T - 1.5 * 3_600_000)}`;
    expect(idsOf(await page(`?actor=${ann}&${window}`))).toEqual([silenceCreate]);
    const event = (await page(`?actor=${bob}`)).events[0];
    expect(event).toEqual({
      id: silenceExpire,
      at: iso(T - 3_600_000),
      actor: bob,
      actorUserId: null,
      action: "silence.expire",
      targetType: "silence",
      targetId: silence,
      before: null,
      after: { n: 1 },
    });
  });

  it("a bad filter is 400 invalid_query at its own path, with its code", async () => {
    const cases: [string, string, string][] = [
      ["?action=key.explode", "$.query.action", "invalid_value"],
      ["?targetType=planet", "$.query.targetType", "invalid_value"],
      ["?limit=0", "$.query.limit", "too_small"],
      ["?limit=201", "$.query.limit", "too_big"],
      ["?limit=ten", "$.query.limit", "invalid_type"],
      ["?since=yesterday", "$.query.since", "custom"],
      [`?since=${iso(T)}&until=${iso(T - 1)}`, "$.query.until", "invalid_range"],
      ["?before=abc", "$.query.before", "invalid_format"],
      ["?before=999999999", "$.query.before", "unknown_cursor"],
      ["?actor=a&actor=b", "$.query.actor", "invalid_type"],
      ["?actor=", "$.query.actor", "too_small"],
      ["?colour=red", "$.query", "unrecognized_keys"],
    ];
    for (const [query, path, code] of cases) {
      const answer = await get(query);
      expect(answer.status, query).toBe(400);
      expect(answer.json.error.code, query).toBe("invalid_query");
      expect(answer.json.error.issues, query).toEqual([expect.objectContaining({ path, code })]);
    }
  });
});

describe("paging", () => {
  it("keyset pages neither repeat nor skip an event while new ones are written", async () => {
    const actor = `pager-${tag}`;
    // 130 events, five to a timestamp: ties are ordered by id.
    await audit.query(
      `insert into audit_events (actor, action, target_type, target_id, at)
        select $1, 'silence.create', 'silence', 's-' || n, $2::timestamptz - (n / 5) * interval '1 second'
        from generate_series(1, 130) n`,
      [actor, iso(T)],
    );
    const expected = (
      await audit.query<{ id: string }>(
        "select id::text from audit_events where actor = $1 order by at desc, id desc",
        [actor],
      )
    ).map((row) => row.id);
    let paging = true;
    const writer = (async () => {
      let written = 0;
      while (paging) {
        await insertEvent(actor, "silence.update", "silence", `live-${written++}`, Date.now());
        await new Promise((r) => setTimeout(r, 5));
      }
      return written;
    })();
    const seen: string[] = [];
    const first = await page(`?actor=${actor}&limit=20`);
    const firstIds = new Set(first.events.map((event) => event.id));
    seen.push(...first.events.map((event) => event.id));
    let cursor = first.nextCursor;
    while (cursor) {
      const next = await page(`?actor=${actor}&limit=20&before=${cursor}`);
      seen.push(...next.events.map((event) => event.id));
      cursor = next.nextCursor;
    }
    paging = false;
    expect(await writer).toBeGreaterThan(0);
    // The first page may already hold events written while it was read; every later page holds only older ones.
    const older = seen.filter((id) => expected.includes(id));
    expect(new Set(seen).size).toBe(seen.length);
    expect(older).toEqual(expected);
    expect(seen.slice(first.events.length).every((id) => expected.includes(id))).toBe(true);
    expect([...firstIds].length).toBe(20);
  });
});

describe("query plans", () => {
  async function plan(filter: Parameters<typeof auditEventsPageQuery>[0]): Promise<string> {
    const { text, values } = auditEventsPageQuery(filter);
    const rows = await audit.query<{ "QUERY PLAN": string }>(`explain ${text}`, values);
    return rows.map((row) => row["QUERY PLAN"]).join("\n");
  }

  it(`reads ${NOISE_ROWS} rows through the indexes, never a sequential scan`, async () => {
    const cases: [Parameters<typeof auditEventsPageQuery>[0], string][] = [
      [{ limit: 51 }, "audit_events_at_id_idx"],
      [{ limit: 51, before: { at: new Date(T - 86_400_000), id: 10_000n } }, "audit_events_at_id_idx"],
      [{ limit: 51, actor: "noise-7" }, "audit_events_actor_at_idx"],
      [{ limit: 51, targetType: "chain", targetId: "c-42" }, "audit_events_target_type_target_id_at_idx"],
      [{ limit: 51, actions: ["key.create"] }, "audit_events_"],
      [{ limit: 51, since: new Date(T - 3_600_000), until: new Date(T) }, "audit_events_at_id_idx"],
    ];
    for (const [filter, index] of cases) {
      const text = await plan(filter);
      expect(
        text,
        JSON.stringify(filter, (_, v) => (typeof v === "bigint" ? String(v) : v)),
      ).toContain(index);
      expect(text).not.toContain("Seq Scan");
    }
  });
});
