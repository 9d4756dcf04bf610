import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HealthRecord } from "@/lib/contract";
import type { TriageItemView } from "@/lib/dashboard/api-types";
import type { LifecycleOutcome, ProblemsBelow, UndoOutcome } from "@/lib/problems/lifecycle";
import type { ProblemResolutionResult, ProblemsPage } from "@/lib/problems/types";
import { alertFingerprint } from "@/lib/routing/fingerprint";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { liveCase } from "@/tests/support/dashboard-records";
import { adminCookie, dashboardClient } from "@/tests/support/dashboard-session";
import { createTeamUser, type TeamUser } from "@/tests/support/team-users";
import { createTestDatabase } from "@/tests/support/test-database";

// One lifecycle (issue 41 §5): resolving a problem offers to resolve its chains' queue items and alerts, says what
// it did, and can be undone exactly; bulk resolve; problem assignees. Real PostgreSQL, the built app.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let ui: ReturnType<typeof dashboardClient>;
let agent: ReturnType<typeof apiClient>;
let sql: pg.Client;
let ana: TeamUser;

type ResolveAnswer = ProblemResolutionResult & LifecycleOutcome;
type BulkAnswer = { problems: ProblemResolutionResult[] } & LifecycleOutcome;
type ErrorBody = { error: { code: string; issues?: { path: string; code: string }[] } };

/** A timed-out write (effect_unknown, a queue state) on `server`, one problem a server. */
function timeoutOn(server: string): HealthRecord {
  const record = liveCase(`lc-${randomUUID()}`, "effect_unknown");
  return { ...record, session: { ...record.session, server: { name: server, version: "1.0.0" } } };
}
async function ingest(...records: HealthRecord[]) {
  const response = await agent.post(records);
  expect(response.status, await response.clone().text()).toBe(200);
}
const keyOf = async (server: string) =>
  (await ui.json<ProblemsPage>(`/api/v1/problems?server=${server}&status=all`)).problems[0]?.key ?? "";
const triage = (chainId: string, body: Record<string, unknown>) =>
  ui.post(`/api/v1/chains/${encodeURIComponent(chainId)}/triage`, { queue: "effect_unknown", ...body });
const undo = (id: string) => ui.post(`/api/v1/resolutions/${id}/undo`, undefined);

/** What the database holds for these chains: their effect_unknown item and alert, and the problem's resolution. */
async function statesOf(chainIds: string[], key: string) {
  const items = await sql.query<{ chain_id: string; status: string; acknowledged_by: string | null }>(
    "select chain_id, status, acknowledged_by from triage_items where chain_id = any($1) and queue = 'effect_unknown'",
    [chainIds],
  );
  const alerts = await sql.query<{ fingerprint: string; status: string; resolved_by: string | null }>(
    "select fingerprint, status, resolved_by from alerts where fingerprint = any($1)",
    [chainIds.map((id) => alertFingerprint(id, "effect_unknown"))],
  );
  const problem = await sql.query("select resolved_by from problem_resolutions where key = $1", [key]);
  return {
    items: Object.fromEntries(
      chainIds.map((id) => [id, items.rows.find((row) => row.chain_id === id) ?? null]),
    ),
    alerts: chainIds.map(
      (id) => alerts.rows.find((row) => row.fingerprint === alertFingerprint(id, "effect_unknown"))?.status,
    ),
    resolved: problem.rows.length === 1,
  };
}
async function expectError(response: Response, status: number, code: string, path?: string) {
  expect(response.status).toBe(status);
  const body = (await response.json()) as ErrorBody;
  expect(body.error.code).toBe(code);
  if (path) expect(body.error.issues?.map((issue) => issue.path)).toContain(path);
  return body;
}

beforeAll(async () => {
  db = await createTestDatabase();
  ana = await createTeamUser(db.url, "ana", "responder");
  app = await startApp(db.url);
  agent = apiClient(app.baseUrl, await createTestKey(db.url, "agent", ["ingest", "read"]));
  ui = dashboardClient(app.baseUrl, await adminCookie(app.baseUrl));
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
}, 120_000);
afterAll(async () => {
  await sql?.end();
  await app?.stop();
  await db?.drop();
});

describe("resolving a problem with cascade, and its undo", () => {
  const server = `cascade-${randomUUID().slice(0, 8)}`;
  // Two untouched chains, one acknowledged, one whose item (and alert) someone resolved already.
  const [untouched1, untouched2, acknowledged, resolvedAlready] = [1, 2, 3, 4].map(() =>
    timeoutOn(server),
  ) as [HealthRecord, HealthRecord, HealthRecord, HealthRecord];
  const ids = [untouched1, untouched2, acknowledged, resolvedAlready].map((record) => record.chainId);
  let key: string;
  let before: Awaited<ReturnType<typeof statesOf>>;
  let answer: ResolveAnswer;

  beforeAll(async () => {
    await ingest(untouched1, untouched2, acknowledged, resolvedAlready);
    expect((await triage(acknowledged.chainId, { action: "acknowledge" })).status).toBe(200);
    expect((await triage(resolvedAlready.chainId, { action: "resolve" })).status).toBe(200);
    key = await keyOf(server);
    before = await statesOf(ids, key);
  });

  it("the confirmation's numbers: what hangs below (open items, untouched ones too, and firing alerts)", async () => {
    expect(before.alerts).toEqual(["firing", "firing", "firing", "resolved"]);
    const below = await ui.json<ProblemsBelow>(`/api/v1/problems/below?key=${key}`);
    expect(below).toEqual({ problems: 1, items: 3, alerts: 3, tooMany: false });
  });

  it("resolves the problem, its three queue items and three alerts in one go, and says so", async () => {
    const response = await ui.post(`/api/v1/problems/${key}/resolve`, { cascade: true });
    expect(response.status).toBe(200);
    answer = (await response.json()) as ResolveAnswer;
    expect(answer).toMatchObject({
      key,
      status: "resolved",
      resolution: { resolvedBy: "admin" },
      resolved: { problems: 1, items: 3, alerts: 3 },
      message: "Resolved 1 problem, 3 queue items and 3 alerts",
    });
    expect(answer.undo?.id).toMatch(/^[0-9a-f-]{36}$/);
    const after = await statesOf(ids, key);
    expect(Object.values(after.items).map((item) => item?.status)).toEqual([
      "resolved",
      "resolved",
      "resolved",
      "resolved",
    ]);
    expect(after.alerts).toEqual(["resolved", "resolved", "resolved", "resolved"]);
    expect(after.resolved).toBe(true);
    const audit = await sql.query(
      "select after from audit_events where action = 'problem.resolve' and target_id = $1",
      [key],
    );
    expect(audit.rows[0]?.after).toMatchObject({ cascade: true, resolvedBelow: { items: 3, alerts: 3 } });
    const below = await ui.json<ProblemsBelow>(`/api/v1/problems/below?key=${key}`);
    expect(below).toEqual({ problems: 0, items: 0, alerts: 0, tooMany: false });
  });

  it("undo restores exactly the states before: untouched again, acknowledged again, alerts firing, problem open", async () => {
    const response = await undo(answer.undo?.id ?? "");
    expect(response.status).toBe(200);
    expect((await response.json()) as UndoOutcome).toMatchObject({
      restored: { problems: 1, items: 3, alerts: 3 },
      message: "Undone: reopened 1 problem, 3 queue items and 3 alerts",
    });
    expect(await statesOf(ids, key)).toEqual(before);
    const audit = await sql.query(
      "select actor from audit_events where action = 'problem.resolve_undo' and target_id = $1",
      [key],
    );
    expect(audit.rows).toEqual([{ actor: "admin" }]);
  });

  it("undo twice is 409 already_undone, and changes nothing", async () => {
    await expectError(await undo(answer.undo?.id ?? ""), 409, "already_undone", "$.path.id");
    expect(await statesOf(ids, key)).toEqual(before);
  });

  it("undo after something changed since is 409 changed_since at its path, and nothing is undone", async () => {
    const again = (await (
      await ui.post(`/api/v1/problems/${key}/resolve`, { cascade: true })
    ).json()) as ResolveAnswer;
    expect(again.resolved).toEqual({ problems: 1, items: 3, alerts: 3 });
    expect((await triage(acknowledged.chainId, { action: "reopen" })).status).toBe(200);
    const changedOnce = await statesOf(ids, key);
    const body = await expectError(await undo(again.undo?.id ?? ""), 409, "changed_since");
    expect(body.error.issues).toHaveLength(1);
    expect(body.error.issues?.[0]?.path).toMatch(/^\$\.items\[\d\]$/);
    expect(await statesOf(ids, key)).toEqual(changedOnce);
    expect(changedOnce.resolved).toBe(true);
    expect(changedOnce.alerts).toEqual(["resolved", "resolved", "resolved", "resolved"]);
  });

  it("an undo past its window is 409 undo_expired; an unknown or malformed id is 404", async () => {
    const other = `expired-${randomUUID().slice(0, 8)}`;
    await ingest(timeoutOn(other));
    const otherKey = await keyOf(other);
    const resolved = (await (
      await ui.post(`/api/v1/problems/${otherKey}/resolve`, {})
    ).json()) as ResolveAnswer;
    await sql.query("update lifecycle_resolutions set at = at - interval '11 minutes' where id = $1", [
      resolved.undo?.id,
    ]);
    await expectError(await undo(resolved.undo?.id ?? ""), 409, "undo_expired", "$.path.id");
    expect((await statesOf([], otherKey)).resolved).toBe(true);
    await expectError(await undo(randomUUID()), 404, "not_found", "$.path.id");
    await expectError(await undo("not-an-id"), 404, "not_found", "$.path.id");
  });
});

describe("a regression after a cascade", () => {
  it("a new chain reopens the problem with its own open item and alert; resolving again takes only those", async () => {
    const server = `regress-${randomUUID().slice(0, 8)}`;
    const old = timeoutOn(server);
    await ingest(old);
    const key = await keyOf(server);
    const first = (await (
      await ui.post(`/api/v1/problems/${key}/resolve`, { cascade: true })
    ).json()) as ResolveAnswer;
    expect(first.resolved).toEqual({ problems: 1, items: 1, alerts: 1 });
    const comeback = timeoutOn(server);
    await ingest(comeback);
    const page = await ui.json<ProblemsPage>(`/api/v1/problems?server=${server}`);
    expect(page.problems[0]?.status).toBe("regressed");
    expect(await ui.json<ProblemsBelow>(`/api/v1/problems/below?key=${key}`)).toEqual({
      problems: 1,
      items: 1,
      alerts: 1,
      tooMany: false,
    });
    const again = (await (
      await ui.post(`/api/v1/problems/${key}/resolve`, { cascade: true })
    ).json()) as ResolveAnswer;
    expect(again.resolved).toEqual({ problems: 1, items: 1, alerts: 1 });
    expect((await statesOf([old.chainId, comeback.chainId], key)).alerts).toEqual(["resolved", "resolved"]);
    // The first resolve's problem row was replaced by the second: its undo would undo someone else's work.
    await expectError(await undo(first.undo?.id ?? ""), 409, "changed_since", "$.problems[0]");
  });
});

describe("resolving without cascade, and a resolved problem", () => {
  it("a bare POST resolves the problem alone; again, it keeps the first resolution and changes nothing", async () => {
    const server = `alone-${randomUUID().slice(0, 8)}`;
    const record = timeoutOn(server);
    await ingest(record);
    const key = await keyOf(server);
    const response = await fetch(`${app.baseUrl}/api/v1/problems/${key}/resolve`, {
      method: "POST",
      headers: { cookie: await adminCookie(app.baseUrl) },
    });
    expect(response.status).toBe(200);
    const first = (await response.json()) as ResolveAnswer;
    expect(first).toMatchObject({
      resolved: { problems: 1, items: 0, alerts: 0 },
      message: "Resolved 1 problem",
    });
    expect((await statesOf([record.chainId], key)).alerts).toEqual(["firing"]);
    const again = (await (await ui.post(`/api/v1/problems/${key}/resolve`, {})).json()) as ResolveAnswer;
    expect(again).toMatchObject({
      resolution: first.resolution,
      resolved: { problems: 0, items: 0, alerts: 0 },
      undo: null,
    });
  });
});

describe("bulk resolve", () => {
  const servers = [1, 2].map((n) => `bulk-${n}-${randomUUID().slice(0, 8)}`);
  const records = servers.map((server) => timeoutOn(server));
  let keys: string[];
  beforeAll(async () => {
    await ingest(...records);
    keys = await Promise.all(servers.map(keyOf));
  });

  it.each([
    ["no keys", { keys: [] }, "$.keys"],
    ["101 keys", { keys: Array.from({ length: 101 }, (_, n) => n.toString(16).padStart(32, "0")) }, "$.keys"],
    ["a malformed key", { keys: ["not-a-key"] }, "$.keys[0]"],
    ["a key named twice", { keys: ["a".repeat(32), "a".repeat(32)] }, "$.keys[1]"],
    ["cascade not a boolean", { keys: ["a".repeat(32)], cascade: "yes" }, "$.cascade"],
    ["an unknown field", { keys: ["a".repeat(32)], force: true }, "$"],
  ])("%s → 422 invalid_body at %s", async (_, body, path) => {
    await expectError(await ui.post("/api/v1/problems/resolve", body), 422, "invalid_body", path);
  });

  it("an unknown key among known ones is 404 at its path, and none of them is resolved", async () => {
    const unknown = "0".repeat(32);
    await expectError(
      await ui.post("/api/v1/problems/resolve", { keys: [keys[0], unknown], cascade: true }),
      404,
      "not_found",
      "$.keys[1]",
    );
    expect((await statesOf([records[0]?.chainId ?? ""], keys[0] ?? "")).resolved).toBe(false);
    expect((await statesOf([records[0]?.chainId ?? ""], keys[0] ?? "")).alerts).toEqual(["firing"]);
  });

  it("resolves several problems with their cascade in one go; one undo restores them all", async () => {
    const below = await ui.json<ProblemsBelow>(`/api/v1/problems/below?key=${keys[0]}&key=${keys[1]}`);
    expect(below).toEqual({ problems: 2, items: 2, alerts: 2, tooMany: false });
    const response = await ui.post("/api/v1/problems/resolve", { keys, cascade: true });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as BulkAnswer;
    expect(answer.problems.map((problem) => problem.status)).toEqual(["resolved", "resolved"]);
    expect(answer.message).toBe("Resolved 2 problems, 2 queue items and 2 alerts");
    const undone = await undo(answer.undo?.id ?? "");
    expect(undone.status).toBe(200);
    for (const [index, record] of records.entries()) {
      const states = await statesOf([record.chainId], keys[index] ?? "");
      expect(states).toEqual({ items: { [record.chainId]: null }, alerts: ["firing"], resolved: false });
    }
  });

  it("single resolve: a bad body is 422 at its path, an unknown key 404 at $.path.key", async () => {
    await expectError(
      await ui.post(`/api/v1/problems/${keys[0]}/resolve`, { cascade: 1 }),
      422,
      "invalid_body",
      "$.cascade",
    );
    await expectError(
      await ui.post(`/api/v1/problems/${"0".repeat(32)}/resolve`, {}),
      404,
      "not_found",
      "$.path.key",
    );
    await expectError(await ui.get(`/api/v1/problems/below?key=nope`), 400, "invalid_query", "$.query.key");
  });
});

describe("a triage item's resolve", () => {
  it("resolves the chain's alert with it, says so, and undoes both", async () => {
    const record = timeoutOn(`item-${randomUUID().slice(0, 8)}`);
    await ingest(record);
    const response = await triage(record.chainId, { action: "resolve" });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { item: TriageItemView; lifecycle: LifecycleOutcome };
    expect(answer.item.status).toBe("resolved");
    expect(answer.lifecycle).toMatchObject({
      resolved: { problems: 0, items: 1, alerts: 1 },
      message: "Resolved 1 queue item and 1 alert",
    });
    expect((await statesOf([record.chainId], "")).alerts).toEqual(["resolved"]);
    expect((await undo(answer.lifecycle.undo?.id ?? "")).status).toBe(200);
    expect(await statesOf([record.chainId], "")).toEqual({
      items: { [record.chainId]: null },
      alerts: ["firing"],
      resolved: false,
    });
    const audit = await sql.query("select action from audit_events where target_id = $1 order by id", [
      record.chainId,
    ]);
    expect(audit.rows.map((row) => row.action)).toEqual(["triage.resolve", "triage.resolve_undo"]);
  });

  it("cascade: false leaves the alert firing; a non-boolean cascade is 422 at $.cascade", async () => {
    const record = timeoutOn(`item-${randomUUID().slice(0, 8)}`);
    await ingest(record);
    await expectError(
      await triage(record.chainId, { action: "resolve", cascade: "no" }),
      422,
      "invalid_body",
      "$.cascade",
    );
    const answer = (await (await triage(record.chainId, { action: "resolve", cascade: false })).json()) as {
      lifecycle: LifecycleOutcome;
    };
    expect(answer.lifecycle.resolved).toEqual({ problems: 0, items: 1, alerts: 0 });
    expect((await statesOf([record.chainId], "")).alerts).toEqual(["firing"]);
  });
});

describe("problem assignees", () => {
  const server = `owner-${randomUUID().slice(0, 8)}`;
  let key: string;
  const assign = (body: unknown, problem = key) => ui.post(`/api/v1/problems/${problem}/assignee`, body);
  beforeAll(async () => {
    await ingest(timeoutOn(server));
    key = await keyOf(server);
  });

  it("assigns a responder, shows them on the problem and filters by them; unassigns", async () => {
    const response = await assign({ action: "assign", assigneeId: ana.id });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      key,
      assignee: { id: ana.id, username: "ana", displayName: null },
    });
    const page = await ui.json<ProblemsPage>(`/api/v1/problems?server=${server}`);
    expect(page.problems[0]?.assignee?.username).toBe("ana");
    const theirs = await ui.json<ProblemsPage>(`/api/v1/problems?server=${server}&assignee=${ana.id}`);
    expect(theirs.problems.map((problem) => problem.key)).toEqual([key]);
    expect((await ui.json<ProblemsPage>(`/api/v1/problems?server=${server}&assignee=me`)).problems).toEqual(
      [],
    );
    await expectError(
      await assign({ action: "assign", assigneeId: ana.id }),
      409,
      "invalid_transition",
      "$.action",
    );
    expect((await assign({ action: "unassign" })).status).toBe(200);
    const audit = await sql.query("select action from audit_events where target_id = $1 order by id", [key]);
    expect(audit.rows.map((row) => row.action)).toEqual(["problem.assign", "problem.unassign"]);
  });

  it("refuses what is not an assignable user, with its path, and an unknown problem", async () => {
    await expectError(
      await assign({ action: "assign", assigneeId: "ana" }),
      422,
      "invalid_body",
      "$.assigneeId",
    );
    await expectError(
      await assign({ action: "assign", assigneeId: randomUUID() }),
      422,
      "invalid_assignee",
      "$.assigneeId",
    );
    await expectError(await assign({ action: "promote" }), 422, "invalid_body");
    await expectError(await assign({ action: "unassign" }, "0".repeat(32)), 404, "not_found", "$.path.key");
  });
});
