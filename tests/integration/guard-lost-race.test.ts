import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Caller } from "@/lib/server/http/authenticate";
import { createTestDatabase } from "@/tests/support/test-database";

// The guard's two ways out of a lost compare-and-set, in-process on a real PostgreSQL: a caller whose facts went stale
// before it granted reads again and decides without a lock; the locked path, its last resort, still grants one
// lease among callers racing through it.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let lib: {
  service: typeof import("@/lib/server/operations/operations-service");
  guardStore: typeof import("@/lib/server/db/operations-guard-store");
  sql: typeof import("@/lib/server/db/sql");
};

const caller: Caller = { kind: "key", keyId: "k1", keyName: "agents", scopes: ["ingest"] };
const ask = (holder: string) => ({ tool: "create_report", holder, leaseMs: 60_000 });

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  lib = {
    service: await import("@/lib/server/operations/operations-service"),
    guardStore: await import("@/lib/server/db/operations-guard-store"),
    sql: await import("@/lib/server/db/sql"),
  };
});
afterAll(async () => {
  const { getPool } = await import("@/lib/server/db/client");
  await getPool().end();
  await db?.drop();
});

const decisionsOf = async (key: string) =>
  (
    await lib.sql
      .poolSql()
      .query<{ decision: string; holder: string }>(
        "select decision, holder from operation_decisions where operation_key = $1 order by id",
        [key],
      )
  ).map((row) => `${row.holder}:${row.decision}`);

describe("a lost compare-and-set", () => {
  it("facts read before another caller's grant: the grant fails, the caller reads again and is told wait", async () => {
    const key = "lost-race:1";
    const stale = await lib.guardStore.readGuardFacts(lib.sql.poolSql(), key);
    const first = await lib.service.guardAttempt(key, ask("agent-1"), caller);
    expect(first.body.decision).toBe("proceed");

    const second = await lib.service.guardAttempt(key, ask("agent-2"), caller, stale);
    expect(second.body).toMatchObject({
      decision: "wait",
      status: "in_flight",
      lease: { holder: "agent-1" },
    });
    expect(second).toMatchObject({ status: 409, code: "operation_in_progress" });
    expect(second.retryAfter).toBeGreaterThan(0);
    expect(await decisionsOf(key)).toEqual(["agent-1:proceed", "agent-2:wait"]);
  });

  it("stale facts of a key that was never seen, bound meanwhile to another tool: 409 operation_key_conflict, not stored", async () => {
    const key = "lost-race:2";
    const stale = await lib.guardStore.readGuardFacts(lib.sql.poolSql(), key);
    await lib.service.guardAttempt(key, { ...ask("agent-1"), tool: "send_invoice" }, caller);
    await expect(lib.service.guardAttempt(key, ask("agent-2"), caller, stale)).rejects.toMatchObject({
      status: 409,
      code: "operation_key_conflict",
    });
    expect(await decisionsOf(key)).toEqual(["agent-1:proceed"]);
  });

  it("five callers through the locked path at once: one proceed, four wait, each decision stored", async () => {
    const key = "lost-race:3";
    const holders = ["a", "b", "c", "d", "e"];
    const replies = await Promise.all(
      holders.map((holder) =>
        lib.service.guardUnderLock(
          key,
          ask(holder),
          { tool: "create_report", server: null },
          `key:${holder}`,
          new Date(),
        ),
      ),
    );
    expect(replies.map((reply) => reply.body.decision).sort()).toEqual([
      "proceed",
      "wait",
      "wait",
      "wait",
      "wait",
    ]);
    const granted = replies.find((reply) => reply.body.decision === "proceed");
    expect(granted?.status).toBe(201);
    expect((await decisionsOf(key)).filter((entry) => entry.endsWith(":proceed"))).toEqual([
      `${granted?.body.lease?.holder}:proceed`,
    ]);
    expect(await decisionsOf(key)).toHaveLength(5);
  });
});
