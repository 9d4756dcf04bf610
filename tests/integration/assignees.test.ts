import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { QueuePage, TriageItemView } from "@/lib/dashboard/api-types";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { liveCase } from "@/tests/support/dashboard-records";
import { dashboardClient } from "@/tests/support/dashboard-session";
import { createTeamUser, signInCookie, type TeamUser } from "@/tests/support/team-users";
import { createTestDatabase } from "@/tests/support/test-database";

// Assignees are users: assign refuses anything but an assignable user's id (with its path), "assigned to me"
// filters the queue, and every triage action lands in the audit log with the item before and after.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let key: string;
let ana: TeamUser;
let bo: TeamUser;
let viewer: TeamUser;
let disabled: TeamUser;
let asAna: ReturnType<typeof dashboardClient>;
let asBo: ReturnType<typeof dashboardClient>;
const first = liveCase("assignees-1", "false_success");
const second = liveCase("assignees-2", "false_success");
const unknown = liveCase("assignees-3", "effect_unknown");
const chainPath = (chainId: string) => `/api/v1/chains/${encodeURIComponent(chainId)}/triage`;

beforeAll(async () => {
  db = await createTestDatabase();
  key = await createTestKey(db.url, "agent", ["ingest", "read"]);
  ana = await createTeamUser(db.url, "ana", "responder");
  bo = await createTeamUser(db.url, "bo", "admin");
  viewer = await createTeamUser(db.url, "vic", "viewer");
  disabled = await createTeamUser(db.url, "dee", "responder");
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query("update users set disabled_at = now() where id = $1", [disabled.id]);
  await client.end();
  app = await startApp(db.url);
  asAna = dashboardClient(app.baseUrl, await signInCookie(app.baseUrl, ana.username, ana.password));
  asBo = dashboardClient(app.baseUrl, await signInCookie(app.baseUrl, bo.username, bo.password));
  expect((await apiClient(app.baseUrl, key).post([first, second, unknown])).status).toBe(200);
}, 120_000);
afterAll(async () => {
  await app?.stop();
  await db?.drop();
});

describe("assign takes a user's id", () => {
  it.each([
    ["free text", { assigneeId: "reports-team" }, "invalid_body"],
    ["markup and SQL", { assigneeId: "<script>alert(1)</script>;DROP TABLE users" }, "invalid_body"],
    ["no assignee", {}, "invalid_body"],
    ["a null assignee", { assigneeId: null }, "invalid_body"],
    ["the old owner field", { owner: "ana" }, "invalid_body"],
    ["an id nobody has", { assigneeId: "6f1c2b1e-8a4d-4e57-9c1a-2d3b4c5d6e7f" }, "invalid_assignee"],
  ])("%s → 422 %s at $.assigneeId", async (_, fields, code) => {
    const response = await asAna.post(chainPath(first.chainId), {
      action: "assign",
      queue: "false_success",
      ...fields,
    });
    expect(response.status).toBe(422);
    const { error } = await response.json();
    expect(error.code).toBe(code);
    expect(error.issues.map((issue: { path: string }) => issue.path)).toContain("$.assigneeId");
  });

  it("a viewer or a disabled user cannot be assigned: 422 invalid_assignee naming why", async () => {
    for (const [user, why] of [
      [viewer, "viewer"],
      [disabled, "disabled"],
    ] as const) {
      const response = await asAna.post(chainPath(first.chainId), {
        action: "assign",
        queue: "false_success",
        assigneeId: user.id,
      });
      expect(response.status).toBe(422);
      const { error } = await response.json();
      expect(error).toMatchObject({ code: "invalid_assignee", issues: [{ path: "$.assigneeId" }] });
      expect(error.issues[0].message).toContain(why);
    }
    const trail = await asAna.json<{ events: unknown[] }>(chainPath(first.chainId));
    expect(trail.events).toEqual([]);
  });

  it("assigns, reassigns and unassigns; the same assignee twice is a 409", async () => {
    const assign = (assigneeId: string) =>
      asAna.post(chainPath(first.chainId), { action: "assign", queue: "false_success", assigneeId });
    const toAna = await assign(ana.id);
    expect(toAna.status).toBe(200);
    expect(((await toAna.json()) as { item: TriageItemView }).item.assignee).toEqual({
      id: ana.id,
      username: "ana",
      displayName: null,
    });
    expect((await assign(ana.id)).status).toBe(409);
    expect((await assign(bo.id)).status).toBe(200);
    const unassigned = await asAna.post(chainPath(first.chainId), {
      action: "unassign",
      queue: "false_success",
    });
    expect(((await unassigned.json()) as { item: TriageItemView }).item.assignee).toBeNull();
    expect(
      (await asAna.post(chainPath(first.chainId), { action: "unassign", queue: "false_success" })).status,
    ).toBe(409);
    expect((await assign(ana.id)).status).toBe(200);
    expect(
      (
        await asBo.post(chainPath(second.chainId), {
          action: "assign",
          queue: "false_success",
          assigneeId: bo.id,
        })
      ).status,
    ).toBe(200);
  });
});

describe("assigned to me", () => {
  const queue = (client: ReturnType<typeof dashboardClient>, query: string) =>
    client.json<QueuePage>(`/api/v1/queues/false-success?status=all&${query}`);

  it("assignee=me and assignee=<id> list only that user's items", async () => {
    const mine = await queue(asAna, "assignee=me");
    expect(mine.entries.map((e) => e.chain.chainId)).toEqual([first.chainId]);
    expect(mine.entries[0]?.triage.assignee?.username).toBe("ana");
    const bos = await queue(asAna, `assignee=${bo.id}`);
    expect(bos.entries.map((e) => e.chain.chainId)).toEqual([second.chainId]);
    const open = await asAna.json<QueuePage>("/api/v1/queues/false-success?assignee=me");
    expect(open.entries.map((e) => e.chain.chainId)).toEqual([first.chainId]);
    const acknowledged = await asAna.json<QueuePage>(
      "/api/v1/queues/false-success?assignee=me&status=acknowledged",
    );
    expect(acknowledged.entries).toEqual([]);
    const everyone = await queue(asAna, "limit=50");
    expect(everyone.entries.map((e) => e.chain.chainId).sort()).toEqual(
      [first.chainId, second.chainId].sort(),
    );
  });

  it("assignee=me with a key → 422 at $.query.assignee; a bad value → 400 at $.query.assignee", async () => {
    const withKey = await apiClient(app.baseUrl, key).get("/api/v1/queues/false-success?assignee=me");
    expect(withKey.status).toBe(422);
    expect(await withKey.json()).toMatchObject({ error: { issues: [{ path: "$.query.assignee" }] } });
    const bad = await asAna.get("/api/v1/queues/false-success?assignee=ana");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { issues: [{ path: "$.query.assignee" }] } });
  });
});

describe("the audit log", () => {
  it("records every triage action with who, and the item before and after", async () => {
    for (const action of ["acknowledge", "note", "resolve", "reopen"]) {
      const body = { action, queue: "false_success", ...(action === "note" ? { note: "checked" } : {}) };
      expect((await asBo.post(chainPath(first.chainId), body)).status).toBe(200);
    }
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const { rows } = await client.query<{
      actor: string;
      actor_user_id: string;
      action: string;
      before: unknown;
      after: unknown;
    }>(
      "select actor, actor_user_id::text, action, before, after from audit_events where target_id = $1 order by id",
      [first.chainId],
    );
    await client.end();
    expect(rows.map((row) => [row.actor, row.action])).toEqual([
      ["ana", "triage.assign"],
      ["ana", "triage.assign"],
      ["ana", "triage.unassign"],
      ["ana", "triage.assign"],
      ["bo", "triage.acknowledge"],
      ["bo", "triage.note"],
      ["bo", "triage.resolve"],
      ["bo", "triage.reopen"],
    ]);
    expect(rows[0]).toMatchObject({
      actor_user_id: ana.id,
      before: null,
      after: { assignee: { username: "ana" } },
    });
    expect(rows[1]).toMatchObject({
      before: { assignee: { username: "ana" } },
      after: { assignee: { id: bo.id, username: "bo" }, status: "open" },
    });
    expect(rows[5]?.after).toMatchObject({ note: "checked" });
    expect(rows[6]).toMatchObject({
      before: { status: "acknowledged" },
      after: { status: "resolved", resolvedBy: "bo" },
    });
  });

  it("records a reconciliation with the chain's state before and after, and the settled item", async () => {
    const reconciled = await asBo.post(`/api/v1/chains/${encodeURIComponent(unknown.chainId)}/reconcile`, {
      status: "absent",
      note: "no row",
    });
    expect(reconciled.status).toBe(200);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const { rows } = await client.query(
      "select actor, actor_user_id::text, action, target_type, before, after from audit_events where target_id = $1",
      [unknown.chainId],
    );
    await client.end();
    expect(rows).toEqual([
      {
        actor: "bo",
        actor_user_id: bo.id,
        action: "chain.reconcile",
        target_type: "chain",
        before: { state: "effect_unknown", shadowedState: null },
        after: expect.objectContaining({
          state: "tool_failed",
          destination: "absent",
          note: "no row",
          item: expect.objectContaining({ queue: "effect_unknown", status: "resolved", resolvedBy: "bo" }),
        }),
      },
    ]);
  });
});
