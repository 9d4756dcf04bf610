import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChainTriage, QueuePage } from "@/lib/dashboard/api-types";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { liveCase } from "@/tests/support/dashboard-records";
import { adminCookie, dashboardClient } from "@/tests/support/dashboard-session";
import { createTestDatabase } from "@/tests/support/test-database";

// Triage of the false-success queue: every bad input and what it gets, the workflow, and who did what when.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let ui: ReturnType<typeof dashboardClient>;
let ingestKey: string;
const falseSuccess = liveCase("triage", "false_success");
const healthy = liveCase("triage", "healthy");
const chainPath = (chainId: string) => `/api/v1/chains/${encodeURIComponent(chainId)}/triage`;
const act = (body: unknown, chainId = falseSuccess.chainId) => ui.post(chainPath(chainId), body);

beforeAll(async () => {
  db = await createTestDatabase();
  ingestKey = await createTestKey(db.url, "agent", ["ingest", "read"]);
  app = await startApp(db.url);
  ui = dashboardClient(app.baseUrl, await adminCookie(app.baseUrl));
  expect((await apiClient(app.baseUrl, ingestKey).post([falseSuccess, healthy])).status).toBe(200);
});
afterAll(async () => {
  await app?.stop();
  await db?.drop();
});

describe("bad triage requests", () => {
  it.each([
    ["an unknown action", { action: "escalate", queue: "false_success" }, "$.action"],
    ["an unknown queue", { action: "acknowledge", queue: "healthy" }, "$.queue"],
    ["assign without an assignee", { action: "assign", queue: "false_success" }, "$.assigneeId"],
    ["an empty note", { action: "note", queue: "false_success", note: "   " }, "$.note"],
    ["an unknown field", { action: "resolve", queue: "false_success", priority: 1 }, "$"],
    [
      "a note over 2000 characters",
      { action: "note", queue: "false_success", note: "x".repeat(2001) },
      "$.note",
    ],
  ])("%s → 422 invalid_body at %s", async (_, body, path) => {
    const response = await act(body);
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ error: { code: "invalid_body", issues: [{ path }] } });
  });

  it("a body that is not JSON → 400 invalid_json; another content type → 415", async () => {
    const broken = await ui.post(chainPath(falseSuccess.chainId), "{", {});
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ error: { code: "invalid_json", issues: [{ path: "$" }] } });
    const text = await ui.post(chainPath(falseSuccess.chainId), "ack", { "content-type": "text/plain" });
    expect(text.status).toBe(415);
  });

  it("a note holding a credential → 422 secret_detected, without echoing it, and nothing stored", async () => {
    const secret = `ghp_${"a1B2".repeat(9)}`;
    const response = await act({ action: "note", queue: "false_success", note: `token is ${secret}` });
    expect(response.status).toBe(422);
    const text = await response.text();
    expect(text).not.toContain(secret);
    expect(JSON.parse(text)).toMatchObject({
      error: { code: "secret_detected", issues: [{ path: "$.note" }] },
    });
    const triage = await ui.json<ChainTriage>(chainPath(falseSuccess.chainId));
    expect(triage.events).toEqual([]);
  });

  it("an unknown chain → 404; a chain not in the queue → 409 not_in_queue", async () => {
    expect((await act({ action: "acknowledge", queue: "false_success" }, "chain:nope")).status).toBe(404);
    const response = await act({ action: "acknowledge", queue: "false_success" }, healthy.chainId);
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({
      error: { code: "not_in_queue", issues: [{ path: "$.queue" }] },
    });
  });

  it("no session → 401; an ingestion key → 403 (triage is for people); another site → 403", async () => {
    const body = JSON.stringify({ action: "acknowledge", queue: "false_success" });
    const url = `${app.baseUrl}${chainPath(falseSuccess.chainId)}`;
    const headers = { "content-type": "application/json" };
    expect((await fetch(url, { method: "POST", headers, body })).status).toBe(401);
    const withKey = { ...headers, authorization: `Bearer ${ingestKey}` };
    expect((await fetch(url, { method: "POST", headers: withKey, body })).status).toBe(403);
    const crossSite = await ui.post(chainPath(falseSuccess.chainId), JSON.parse(body), {
      origin: "https://evil.example",
    });
    expect(crossSite.status).toBe(403);
  });
});

describe("the false-success workflow", () => {
  it("lists the chain as open in its queue; bad queue parameters are refused with their path", async () => {
    const page = await ui.json<QueuePage>("/api/v1/queues/false-success");
    expect(page.entries.map((entry) => entry.chain.chainId)).toEqual([falseSuccess.chainId]);
    expect(page.entries[0]?.triage.status).toBe("open");
    expect(page.counts).toEqual({ open: 1, acknowledged: 0, resolved: 0 });
    expect((await ui.get("/api/v1/queues/healthy")).status).toBe(404);
    const bad = await ui.get("/api/v1/queues/false-success?status=closed");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { issues: [{ path: "$.query.status" }] } });
  });

  it("acknowledge → assign → note → resolve → reopen, with refused no-ops (409 invalid_transition)", async () => {
    expect((await act({ action: "acknowledge", queue: "false_success", note: "looking" })).status).toBe(200);
    const again = await act({ action: "acknowledge", queue: "false_success" });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: { code: "invalid_transition" } });
    const { users } = await ui.json<{ users: { id: string; username: string }[] }>("/api/v1/users");
    const admin = users.find((user) => user.username === "admin");
    const assigned = await act({ action: "assign", queue: "false_success", assigneeId: admin?.id });
    expect(await assigned.json()).toMatchObject({
      item: { assignee: { id: admin?.id, username: "admin" }, status: "acknowledged" },
    });
    expect((await act({ action: "note", queue: "false_success", note: "draft row missing" })).status).toBe(
      200,
    );
    const resolved = await act({ action: "resolve", queue: "false_success", note: "re-run by hand" });
    expect(await resolved.json()).toMatchObject({ item: { status: "resolved", resolvedBy: "admin" } });
    expect((await act({ action: "resolve", queue: "false_success" })).status).toBe(409);
    expect((await act({ action: "reopen", queue: "false_success" })).status).toBe(200);
    expect((await act({ action: "resolve", queue: "false_success" })).status).toBe(200);
  });

  it("keeps the audit trail: who did what, in order, with notes", async () => {
    const triage = await ui.json<ChainTriage>(chainPath(falseSuccess.chainId));
    expect(triage.events.map((event) => [event.actor, event.action, event.note])).toEqual([
      ["admin", "acknowledge", "looking"],
      ["admin", "assign", null],
      ["admin", "note", "draft row missing"],
      ["admin", "resolve", "re-run by hand"],
      ["admin", "reopen", null],
      ["admin", "resolve", null],
    ]);
    expect(triage.events[1]?.data).toEqual({ from: null, to: "admin" });
    expect(triage.items).toMatchObject([
      { queue: "false_success", status: "resolved", assignee: { username: "admin" } },
    ]);
    const page = await ui.json<QueuePage>("/api/v1/queues/false-success?status=resolved");
    expect(page.entries.map((entry) => entry.triage.status)).toEqual(["resolved"]);
    expect((await ui.json<QueuePage>("/api/v1/queues/false-success")).entries).toEqual([]);
  });

  it("a read key may read the queue and the trail, not change them", async () => {
    const reader = apiClient(app.baseUrl, ingestKey);
    expect((await reader.get("/api/v1/queues/false-success")).status).toBe(200);
    expect((await reader.get(chainPath(falseSuccess.chainId))).status).toBe(200);
    expect((await reader.get(chainPath("chain:nope"))).status).toBe(404);
  });
});
