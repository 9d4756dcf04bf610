import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChainTriage, QueuePage } from "@/lib/dashboard/api-types";
import type { AlertGroupsAnswer } from "@/lib/dashboard/routing-api-types";
import type { TRoutingConfig } from "@/lib/routing/config";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { dashboardClient } from "@/tests/support/dashboard-session";
import {
  alertsReceived,
  FAST_ROUTING_ENV,
  HOOK_SECRET,
  routingApi,
  seedRecord,
} from "@/tests/support/routing-helpers";
import { type ScriptedReceiver, startScriptedReceiver } from "@/tests/support/scripted-receiver";
import { createTeamUser, signInCookie, type TeamUser } from "@/tests/support/team-users";
import { createTestDatabase } from "@/tests/support/test-database";

// A user's own notification target gets the alerts of what is assigned to them, through the delivery path (retried,
// logged); a personal webhook that hangs holds up nobody else; reassigning moves the notifications; the alerts page
// assigns alerts and filters "assigned to me".
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let receiver: ScriptedReceiver;
let app: RunningApp;
let key: string;
let ana: TeamUser;
let bo: TeamUser;
let viewer: TeamUser;
let asAna: ReturnType<typeof dashboardClient>;
let asBo: ReturnType<typeof dashboardClient>;
const moved = seedRecord("false_success", "assignee-moved");
const deadEnd = seedRecord("false_success", "assignee-dead");
const failed = seedRecord("tool_failed", "assignee-alert");
const triage = (chainId: string) => `/api/v1/chains/${encodeURIComponent(chainId)}/triage`;
const TARGET = "/api/v1/me/notification-target";

function config(): TRoutingConfig {
  return {
    version: 1,
    channels: [
      {
        name: "team",
        ownerRole: "ops",
        targets: [{ type: "webhook", url: receiver.url("/team"), secret: HOOK_SECRET }],
      },
    ],
    route: { receiver: "team", groupBy: ["..."], groupWait: "0s", groupInterval: "1s", repeatInterval: "1h" },
    inhibitRules: [],
    silences: [],
  };
}

const chainsAt = (path: string, status: string) =>
  alertsReceived(receiver.received(path))
    .filter(({ alert }) => alert.status === status)
    .map(({ alert }) => alert.chainId);

beforeAll(async () => {
  db = await createTestDatabase();
  // Ana's own webhook never answers: every attempt hangs until the delivery timeout.
  receiver = await startScriptedReceiver((path) => (path === "/ana" ? "hold" : { status: 200 }));
  key = await createTestKey(db.url, "agent", ["ingest", "read"]);
  ana = await createTeamUser(db.url, "ana", "responder");
  bo = await createTeamUser(db.url, "bo", "admin");
  viewer = await createTeamUser(db.url, "vic", "viewer");
  app = await startApp(db.url, FAST_ROUTING_ENV);
  asAna = dashboardClient(app.baseUrl, await signInCookie(app.baseUrl, ana.username, ana.password));
  const boCookie = await signInCookie(app.baseUrl, bo.username, bo.password);
  asBo = dashboardClient(app.baseUrl, boCookie);
  await routingApi(app.baseUrl, boCookie).saveConfig(config());
  expect((await apiClient(app.baseUrl, key).post([moved, deadEnd, failed])).status).toBe(200);
  await receiver.waitFor(
    () => chainsAt("/team", "firing").length === 3,
    15_000,
    "the team's first notifications",
  );
}, 120_000);
afterAll(async () => {
  await app?.stop();
  await receiver?.stop();
  await db?.drop();
});

describe("a user's own notification target", () => {
  let anaCookie = "";
  let boCookie = "";
  beforeAll(async () => {
    anaCookie = await signInCookie(app.baseUrl, ana.username, ana.password);
    boCookie = await signInCookie(app.baseUrl, bo.username, bo.password);
  });
  const send = (cookie: string, method: string, body?: unknown) =>
    fetch(`${app.baseUrl}${TARGET}`, {
      method,
      headers: { cookie, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it.each([
    ["an unknown kind", { kind: "email", url: "https://x.example" }, "$.kind"],
    ["no url", { kind: "slack" }, "$.url"],
    ["a url that is not http(s)", { kind: "webhook", url: "ftp://x.example/hook" }, "$.url"],
    ["not a url", { kind: "slack", url: "<script>" }, "$.url"],
    ["a short secret", { kind: "webhook", url: "https://x.example/h", secret: "short" }, "$.secret"],
    ["an unknown field", { kind: "slack", url: "https://hooks.example/T/B/x", channel: "#me" }, "$"],
  ])("%s → 422 invalid_body at %s, nothing stored", async (_, body, path) => {
    const response = await send(anaCookie, "PUT", body);
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ error: { code: "invalid_body", issues: [{ path }] } });
    expect(await (await send(anaCookie, "GET")).json()).toEqual({ target: null });
  });

  it("a key is nobody: 403 (scope self); without a target a test send is 422", async () => {
    const withKey = await fetch(`${app.baseUrl}${TARGET}`, { headers: { authorization: `Bearer ${key}` } });
    expect(withKey.status).toBe(403);
    const test = await fetch(`${app.baseUrl}${TARGET}/test`, {
      method: "POST",
      headers: { cookie: anaCookie },
    });
    expect(test.status).toBe(422);
  });

  it("stores it, shows it masked (never the path or secret), and a test send reaches it", async () => {
    const saved = await send(boCookie, "PUT", { kind: "webhook", url: receiver.url("/bo/secret-path") });
    expect(saved.status).toBe(200);
    const shown = await (await send(boCookie, "GET")).text();
    expect(shown).not.toContain("secret-path");
    expect(JSON.parse(shown)).toEqual({
      target: { kind: "webhook", url: `${new URL(receiver.url("/")).origin}/••••••`, signed: false },
    });
    const test = await fetch(`${app.baseUrl}${TARGET}/test`, {
      method: "POST",
      headers: { cookie: boCookie },
    });
    expect(test.status).toBe(202);
    await receiver.waitFor(() => receiver.received("/bo/secret-path").length === 1, 10_000, "the test send");
    const anaSaved = await send(anaCookie, "PUT", {
      kind: "webhook",
      url: receiver.url("/ana"),
      secret: HOOK_SECRET,
    });
    expect(await anaSaved.json()).toMatchObject({ target: { kind: "webhook", signed: true } });
  });

  it("the item's assignee gets its alert; reassigning moves it; a hanging personal webhook blocks nobody", async () => {
    const assign = (chainId: string, assigneeId: string) =>
      asAna.post(triage(chainId), { action: "assign", queue: "false_success", assigneeId });
    expect((await assign(moved.chainId, ana.id)).status).toBe(200);
    expect((await assign(moved.chainId, bo.id)).status).toBe(200);
    expect((await assign(deadEnd.chainId, ana.id)).status).toBe(200);
    for (const chainId of [moved.chainId, deadEnd.chainId]) {
      const resolved = await asAna.post(triage(chainId), { action: "resolve", queue: "false_success" });
      expect(resolved.status).toBe(200);
    }
    // The team hears of both while Ana's webhook hangs on its first attempt.
    await receiver.waitFor(
      () => chainsAt("/team", "resolved").length === 2,
      10_000,
      "the team's resolutions",
    );
    await receiver.waitFor(() => receiver.received("/ana").length >= 1, 10_000, "Ana's copy, which hangs");
    expect(chainsAt("/team", "resolved")).toHaveLength(2);
    await receiver.waitFor(() => chainsAt("/bo/secret-path", "resolved").length === 1, 10_000, "Bo's copy");
    expect(chainsAt("/bo/secret-path", "resolved")).toEqual([moved.chainId]);
    expect(alertsReceived(receiver.received("/ana")).map(({ alert }) => alert.chainId)).toEqual([
      deadEnd.chainId,
    ]);
    // Recorded in the delivery log like any other: Bo's delivered, Ana's still being tried.
    const log = await routingApi(app.baseUrl, await signInCookie(app.baseUrl, bo.username, bo.password)).get(
      "/deliveries?limit=50",
    );
    const byChannel = (channel: string) =>
      (log.json.deliveries as { channel: string; status: string; kind: string }[]).filter(
        (d) => d.channel === channel && d.kind === "notification",
      );
    expect(byChannel("assignee:bo").map((d) => d.status)).toEqual(["delivered"]);
    expect(byChannel("assignee:ana").map((d) => d.status)).toEqual(["pending"]);
  });
});

describe("assigning alerts on the alerts page", () => {
  const groups = (client: ReturnType<typeof dashboardClient>, query: string) =>
    client.json<AlertGroupsAnswer>(`/api/v1/routing/alerts/groups?${query}`);
  const fingerprintOf = async (chainId: string) => {
    const answer = await groups(asAna, `chain=${encodeURIComponent(chainId)}`);
    return answer.groups.flatMap((g) => g.alerts).find((a) => a.chainId === chainId)?.fingerprint ?? "";
  };
  const assignAlert = (fingerprint: string, body: unknown) =>
    asAna.post(`/api/v1/routing/alerts/${fingerprint}/assignee`, body);

  it("refuses a viewer, an unknown id and free text at $.assigneeId; an unknown alert is a 404", async () => {
    const fingerprint = await fingerprintOf(failed.chainId);
    for (const [assigneeId, code] of [
      [viewer.id, "invalid_assignee"],
      ["6f1c2b1e-8a4d-4e57-9c1a-2d3b4c5d6e7f", "invalid_assignee"],
      ["ana", "invalid_body"],
    ]) {
      const response = await assignAlert(fingerprint, { action: "assign", assigneeId });
      expect(response.status).toBe(422);
      expect(await response.json()).toMatchObject({ error: { code, issues: [{ path: "$.assigneeId" }] } });
    }
    expect((await assignAlert("0123456789abcdef", { action: "unassign" })).status).toBe(404);
  });

  it("assigning a queue state's alert assigns the chain's item too, creating it if nobody triaged it yet", async () => {
    const fresh = seedRecord("false_success", "assignee-fresh");
    expect((await apiClient(app.baseUrl, key).post([fresh])).status).toBe(200);
    const fingerprint = await fingerprintOf(fresh.chainId);
    expect((await assignAlert(fingerprint, { action: "assign", assigneeId: bo.id })).status).toBe(200);
    const trail = await asAna.json<ChainTriage>(triage(fresh.chainId));
    expect(trail.items).toMatchObject([
      { queue: "false_success", status: "open", assignee: { username: "bo" } },
    ]);
    expect(trail.events).toMatchObject([
      { action: "assign", actor: "ana", data: { to: "bo", via: "alert" } },
    ]);
    const bos = await asBo.json<QueuePage>("/api/v1/queues/false-success?assignee=me");
    expect(bos.entries.map((e) => e.chain.chainId)).toEqual([fresh.chainId]);
  });

  it("assigns an alert; assignee=me on the alert groups lists it for its assignee only", async () => {
    const fingerprint = await fingerprintOf(failed.chainId);
    const assigned = await assignAlert(fingerprint, { action: "assign", assigneeId: ana.id });
    expect(assigned.status).toBe(200);
    expect(await assigned.json()).toMatchObject({ assignee: { id: ana.id, username: "ana" } });
    const mine = await groups(asAna, "assignee=me");
    expect(mine.groups.flatMap((g) => g.alerts).map((a) => [a.chainId, a.assignee?.username])).toEqual([
      [failed.chainId, "ana"],
    ]);
    const bos = (await groups(asBo, "assignee=me")).groups.flatMap((g) => g.alerts);
    expect(bos.length).toBeGreaterThan(0);
    expect(new Set(bos.map((a) => a.assignee?.username))).toEqual(new Set(["bo"]));
    const withKey = await apiClient(app.baseUrl, key).get("/api/v1/routing/alerts/groups?assignee=me");
    expect(withKey.status).toBe(422);
    expect(await withKey.json()).toMatchObject({ error: { issues: [{ path: "$.query.assignee" }] } });
    expect((await assignAlert(fingerprint, { action: "assign", assigneeId: ana.id })).status).toBe(409);
    expect((await assignAlert(fingerprint, { action: "unassign" })).status).toBe(200);
    expect((await groups(asAna, "assignee=me")).groups).toEqual([]);
  });
});
