import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "@/tests/support/test-database";

// When a notification group is next evaluated, as new members arrive (addGroupMembers on a real PostgreSQL). An
// evaluation reads and routes every member of the group, so it is scheduled for when a notification can be due.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let groups: typeof import("@/lib/server/db/routing-groups");
let sql: typeof import("@/lib/server/db/sql");

const WAIT = 30_000;
const INTERVAL = 300_000;
const T0 = Date.parse("2026-11-30T12:00:00.000Z");
const at = (ms: number) => new Date(T0 + ms);

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  groups = await import("@/lib/server/db/routing-groups");
  sql = await import("@/lib/server/db/sql");
});
afterAll(async () => {
  const { getPool } = await import("@/lib/server/db/client");
  await getPool().end();
  await db?.drop();
});

const add = (groupKey: string, fingerprint: string, now: Date) =>
  sql.inTransaction((s) =>
    groups.addGroupMembers(
      s,
      [
        {
          groupKey,
          receiver: "integration owner",
          routePath: "$.route",
          labels: { server: "srv" },
          fingerprints: [fingerprint],
          groupWaitMs: WAIT,
          groupIntervalMs: INTERVAL,
        },
      ],
      now,
    ),
  );

async function nextActionAt(groupKey: string): Promise<number | undefined> {
  const [row] = await sql
    .poolSql()
    .query<{ next_action_at: Date | null }>(
      "select next_action_at from notification_groups where group_key = $1",
      [groupKey],
    );
  return row?.next_action_at?.getTime();
}

/** What a flush records after sending: the members, the send time and its next wake-up. */
const sent = (groupKey: string, when: Date, dropped: string[] = []) =>
  sql.inTransaction((s) =>
    groups.saveGroupStates(
      s,
      [
        {
          groupKey,
          dropped,
          lastSentAt: when,
          lastSentFingerprints: ["fp-1"],
          nextActionAt: new Date(when.getTime() + INTERVAL),
        },
      ],
      when,
    ),
  );

describe("notification group scheduling", () => {
  it("a new group is evaluated groupWait after its first alert", async () => {
    await add("g-new", "fp-1", at(0));
    expect(await nextActionAt("g-new")).toBe(T0 + WAIT);
  });

  it("new members after a send wait for the group's next flush tick, not groupWait from now", async () => {
    await add("g-busy", "fp-1", at(0));
    await sent("g-busy", at(WAIT));
    await add("g-busy", "fp-2", at(WAIT + 10_000));
    await add("g-busy", "fp-3", at(WAIT + 60_000));
    expect(await nextActionAt("g-busy")).toBe(T0 + WAIT + INTERVAL);
  });

  it("groupInterval is a cadence: a send that ran late does not shift the next tick", async () => {
    await add("g-late", "fp-1", at(0));
    await sent("g-late", at(WAIT + 7_000));
    await add("g-late", "fp-2", at(WAIT + 10_000));
    expect(await nextActionAt("g-late")).toBe(T0 + WAIT + INTERVAL);
  });

  it("a member added after quiet ticks waits for the next tick of the cadence, not groupInterval from now", async () => {
    await add("g-quiet", "fp-1", at(0));
    await sent("g-quiet", at(WAIT));
    await sql
      .poolSql()
      .execute("update notification_groups set next_action_at = null where group_key = $1", ["g-quiet"]);
    await add("g-quiet", "fp-2", at(WAIT + INTERVAL + 5_000));
    expect(await nextActionAt("g-quiet")).toBe(T0 + WAIT + 2 * INTERVAL);
  });

  it("a member added exactly on a tick is evaluated at that tick", async () => {
    await add("g-tick", "fp-1", at(0));
    await sent("g-tick", at(WAIT));
    await sql
      .poolSql()
      .execute("update notification_groups set next_action_at = null where group_key = $1", ["g-tick"]);
    await add("g-tick", "fp-2", at(WAIT + 3 * INTERVAL));
    expect(await nextActionAt("g-tick")).toBe(T0 + WAIT + 3 * INTERVAL);
  });

  it("an earlier wake-up planned by a flush is kept", async () => {
    await add("g-wake", "fp-1", at(0));
    await sent("g-wake", at(WAIT));
    await sql
      .poolSql()
      .execute("update notification_groups set next_action_at = $2 where group_key = $1", [
        "g-wake",
        at(WAIT + 60_000),
      ]);
    await add("g-wake", "fp-2", at(WAIT + 10_000));
    expect(await nextActionAt("g-wake")).toBe(T0 + WAIT + 60_000);
  });

  it("a group left empty starts afresh: its next first alert waits groupWait again", async () => {
    await add("g-empty", "fp-1", at(0));
    await sent("g-empty", at(WAIT), ["fp-1"]);
    await add("g-empty", "fp-9", at(WAIT + 20_000));
    expect(await nextActionAt("g-empty")).toBe(T0 + WAIT + 20_000 + WAIT);
  });
});
