import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Alert } from "@/lib/routing/types";
import { teamWebhookRouting } from "@/tests/support/routing-helpers";
import { createTestDatabase } from "@/tests/support/test-database";

// Routing at commit, called directly on a real PostgreSQL as ingestion calls it: a transaction routes at commit once.
// A later step of the same transaction (an OTLP export stores its records step by step) takes the outbox, so a
// transaction takes its groups' key locks once, in one sorted order.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let lib: {
  sql: typeof import("@/lib/server/db/sql");
  wake: typeof import("@/lib/server/db/wake-notify");
  routeAtCommit: typeof import("@/lib/server/routing/route-at-commit");
  config: typeof import("@/lib/server/routing/routing-config");
};

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  lib = {
    sql: await import("@/lib/server/db/sql"),
    wake: await import("@/lib/server/db/wake-notify"),
    routeAtCommit: await import("@/lib/server/routing/route-at-commit"),
    config: await import("@/lib/server/routing/routing-config"),
  };
  // What the server's background jobs register when they start here (worker/background.ts).
  lib.wake.onGroupScheduledHere(() => {});
  await lib.config.saveRoutingConfig({
    config: teamWebhookRouting("https://hooks.example.com/team"),
    actor: { actorUserId: null, actor: "test" },
    audit: { action: "routing.config_apply" },
    comment: null,
  });
});
afterAll(async () => {
  lib?.wake.onGroupScheduledHere(undefined);
  const { getPool } = await import("@/lib/server/db/client");
  await getPool().end();
  await db?.drop();
});

const alert = (id: string): Alert => ({
  fingerprint: `fp-${id}`,
  chainId: `chain:${id}`,
  sessionId: `sess:${id}`,
  state: "tool_failed",
  layer: "request",
  reasons: ["request.tool_error"],
  severity: "warning",
  labels: { chain: `chain:${id}`, state: "tool_failed", server: id },
});

describe("routeAtCommit", () => {
  it("routes a transaction's first step; a later step of it takes the outbox; the next transaction routes again", async () => {
    const now = new Date();
    const [first, second] = await lib.sql.inTransaction(async (sql) => [
      await lib.routeAtCommit.routeAtCommit(sql, [alert("once-a")], now),
      await lib.routeAtCommit.routeAtCommit(sql, [alert("once-b")], now),
    ]);
    expect([...first]).toEqual(["fp-once-a"]);
    expect([...second]).toEqual([]);
    const next = await lib.sql.inTransaction((sql) =>
      lib.routeAtCommit.routeAtCommit(sql, [alert("once-c")], new Date()),
    );
    expect([...next]).toEqual(["fp-once-c"]);
  });

  it("routes nothing outside a transaction of inTransaction, nor when no route sends at once", async () => {
    const pool = await lib.routeAtCommit.routeAtCommit(lib.sql.poolSql(), [alert("pool")], new Date());
    expect([...pool]).toEqual([]);
    const waiting = teamWebhookRouting("https://hooks.example.com/team");
    waiting.route.groupWait = "30s";
    waiting.route.groupInterval = "1m";
    await lib.config.saveRoutingConfig({
      config: waiting,
      actor: { actorUserId: null, actor: "test" },
      audit: { action: "routing.config_apply" },
      comment: null,
    });
    const routed = await lib.sql.inTransaction((sql) =>
      lib.routeAtCommit.routeAtCommit(sql, [alert("waits")], new Date()),
    );
    expect([...routed]).toEqual([]);
  });
});
