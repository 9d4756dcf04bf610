import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChainDetail, ChainTriage, QueuePage } from "@/lib/dashboard/api-types";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { laterSnapshot, liveCase, shadowedTimeout } from "@/tests/support/dashboard-records";
import { adminCookie, dashboardClient } from "@/tests/support/dashboard-session";
import { createTestDatabase } from "@/tests/support/test-database";

// Reconciliation: the operator's look at the destination is evidence; the chain is classified again with it
// (contract rules 17 and 19), and a later record without newer destination evidence does not wipe it.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let ui: ReturnType<typeof dashboardClient>;
let agent: ReturnType<typeof apiClient>;
let agentKey: string;
const reconcilePath = (chainId: string) => `/api/v1/chains/${encodeURIComponent(chainId)}/reconcile`;
const chain = (chainId: string) => ui.json<ChainDetail>(`/api/v1/chains/${encodeURIComponent(chainId)}`);
const queue = async (status = "all") =>
  (await ui.json<QueuePage>(`/api/v1/queues/effect-unknown?status=${status}`)).entries.map(
    (e) => e.chain.chainId,
  );

async function ingest(...records: unknown[]) {
  const response = await agent.post(records);
  expect(response.status, await response.clone().text()).toBe(200);
}

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startApp(db.url);
  agentKey = await createTestKey(db.url, "agent", ["ingest", "read"]);
  agent = apiClient(app.baseUrl, agentKey);
  ui = dashboardClient(app.baseUrl, await adminCookie(app.baseUrl));
});
afterAll(async () => {
  await app?.stop();
  await db?.drop();
});

describe("bad reconcile requests", () => {
  const timeout = liveCase("bad", "effect_unknown");
  beforeAll(() => ingest(timeout));

  it.each([
    ["committed without a receipt", { status: "committed" }, "$.receipt"],
    ["absent with a receipt", { status: "absent", receipt: "reports/1" }, "$"],
    ["an unknown status", { status: "maybe" }, "$.status"],
    ["a receipt over 256 characters", { status: "committed", receipt: "r".repeat(257) }, "$.receipt"],
  ])("%s → 422 invalid_body at %s", async (_, body, path) => {
    const response = await ui.post(reconcilePath(timeout.chainId), body);
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ error: { code: "invalid_body", issues: [{ path }] } });
  });

  it("a receipt holding a credential → 422 secret_detected at $.receipt", async () => {
    const response = await ui.post(reconcilePath(timeout.chainId), {
      status: "committed",
      receipt: `AKIA${"ABCDEFGHIJKLMNOP"}`,
    });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({
      error: { code: "secret_detected", issues: [{ path: "$.receipt" }] },
    });
  });

  it("an unknown chain → 404; a chain whose effect is not unknown → 409 not_effect_unknown", async () => {
    expect((await ui.post(reconcilePath("chain:nope"), { status: "absent" })).status).toBe(404);
    const healthy = liveCase("bad", "healthy");
    await ingest(healthy);
    const response = await ui.post(reconcilePath(healthy.chainId), { status: "absent" });
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({ error: { code: "not_effect_unknown" } });
  });

  it("an ingestion key cannot reconcile (403); nothing was recorded by the refused attempts", async () => {
    const response = await fetch(`${app.baseUrl}${reconcilePath(timeout.chainId)}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${agentKey}` },
      body: JSON.stringify({ status: "absent" }),
    });
    expect(response.status).toBe(403);
    const triage = await ui.json<ChainTriage>(`/api/v1/chains/${encodeURIComponent(timeout.chainId)}/triage`);
    expect(triage).toEqual({ items: [], events: [], operatorEffects: [] });
    expect((await chain(timeout.chainId)).chain.state).toBe("effect_unknown");
  });
});

describe("reconciling", () => {
  it("absent → tool_failed decided in the effect layer, retry-safe, resolved in the queue, with history and audit", async () => {
    const timeout = liveCase("absent", "effect_unknown");
    await ingest(timeout);
    expect(await queue()).toContain(timeout.chainId);
    const response = await ui.post(reconcilePath(timeout.chainId), {
      status: "absent",
      note: "no report row",
    });
    expect(await response.json()).toMatchObject({
      fromState: "effect_unknown",
      toState: "tool_failed",
      reasons: ["effect.absent", "request.deadline_exceeded"],
      retrySafe: true,
    });
    const detail = await chain(timeout.chainId);
    expect(detail.chain).toMatchObject({ state: "tool_failed", layer: "effect", retrySafe: true });
    expect(detail.history.at(-1)).toMatchObject({
      fromState: "effect_unknown",
      toState: "tool_failed",
      cause: "reconcile",
    });
    expect(await queue("open")).not.toContain(timeout.chainId);
    expect(await queue("resolved")).toContain(timeout.chainId);
    const triage = await ui.json<ChainTriage>(`/api/v1/chains/${encodeURIComponent(timeout.chainId)}/triage`);
    expect(triage.operatorEffects).toMatchObject([
      { status: "absent", actor: "admin", note: "no report row" },
    ]);
    expect(triage.items).toMatchObject([
      { queue: "effect_unknown", status: "resolved", resolvedBy: "admin" },
    ]);
    expect(triage.events).toMatchObject([
      {
        action: "reconcile",
        actor: "admin",
        data: { status: "absent", fromState: "effect_unknown", toState: "tool_failed" },
      },
    ]);
  });

  it("committed → goes on to the outcome rule: a declared verifier not yet reported is unverified (pending)", async () => {
    const timeout = liveCase("committed", "effect_unknown");
    await ingest(timeout);
    const response = await ui.post(reconcilePath(timeout.chainId), {
      status: "committed",
      receipt: "reports/77@v1",
    });
    expect(await response.json()).toMatchObject({
      toState: "unverified",
      reasons: ["outcome.pending", "request.deadline_exceeded"],
      retrySafe: false,
    });
    expect((await chain(timeout.chainId)).chain).toMatchObject({ state: "unverified", layer: "outcome" });
  });

  it("committed, and the verifier then fails → false_success, which enters the false-success queue", async () => {
    const timeout = liveCase("verifier", "effect_unknown");
    await ingest(timeout);
    await ui.post(reconcilePath(timeout.chainId), { status: "committed", receipt: "reports/78@v1" });
    const later = laterSnapshot(timeout, 5_000, "verified");
    if (!later.call) throw new Error("the timeout case has a call");
    later.call.outcome = {
      checkedAt: later.observedAt,
      verifier: "db_row",
      verdict: "fail",
      receipt: "row 78 empty",
    };
    await ingest(later);
    expect((await chain(timeout.chainId)).chain).toMatchObject({
      state: "false_success",
      reasons: ["outcome.verifier_failed", "request.deadline_exceeded"],
    });
    const falseSuccess = await ui.json<QueuePage>("/api/v1/queues/false-success");
    expect(falseSuccess.entries.map((e) => e.chain.chainId)).toContain(timeout.chainId);
  });

  it("a later record of the same call without newer destination evidence keeps the operator's evidence", async () => {
    const timeout = liveCase("keeps", "effect_unknown");
    await ingest(timeout);
    await ui.post(reconcilePath(timeout.chainId), { status: "absent" });
    await ingest(laterSnapshot(timeout, 10_000, "again"));
    const detail = await chain(timeout.chainId);
    expect(detail.chain).toMatchObject({
      state: "tool_failed",
      reasons: ["effect.absent", "request.deadline_exceeded"],
    });
    expect(detail.chain.currentRecordId).toBe(`${timeout.recordId}:again`);
    expect(detail.records).toHaveLength(2);
  });

  it("a later record with its own newer destination check wins over the operator's", async () => {
    const timeout = liveCase("newer", "effect_unknown");
    await ingest(timeout);
    await ui.post(reconcilePath(timeout.chainId), { status: "absent" });
    const later = laterSnapshot(timeout, 10_000, "checked");
    later.observedAt = new Date(Date.now() + 60_000).toISOString();
    if (!later.call) throw new Error("the timeout case has a call");
    later.call.effect = { checkedAt: later.observedAt, status: "committed", receipt: "reports/79@v2" };
    await ingest(later);
    expect((await chain(timeout.chainId)).chain).toMatchObject({
      state: "unverified",
      reasons: ["outcome.pending", "request.deadline_exceeded"],
    });
  });

  it("a timed-out write behind an auth challenge is in the queue as shadowed, and reconciling settles the shadow", async () => {
    const shadowed = shadowedTimeout("shadow");
    await ingest(shadowed);
    const page = await ui.json<QueuePage>("/api/v1/queues/effect-unknown");
    expect(page.entries.find((e) => e.chain.chainId === shadowed.chainId)).toMatchObject({
      matchedBy: "shadowed",
      chain: { state: "needs_auth", shadowed: { state: "effect_unknown", reason: "effect.unreconciled" } },
    });
    const response = await ui.post(reconcilePath(shadowed.chainId), { status: "absent" });
    expect(await response.json()).toMatchObject({
      fromState: "needs_auth",
      toState: "needs_auth",
      shadowed: { state: "tool_failed", reason: "effect.absent" },
    });
    expect(await queue("open")).not.toContain(shadowed.chainId);
    expect(await queue("resolved")).toContain(shadowed.chainId);
    // The state did not change, so there is no history row; the audit trail still says who reconciled.
    const triage = await ui.json<ChainTriage>(
      `/api/v1/chains/${encodeURIComponent(shadowed.chainId)}/triage`,
    );
    expect(triage.events.map((e) => e.action)).toEqual(["reconcile"]);
  });
});
