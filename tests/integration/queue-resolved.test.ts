import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { QueuePage } from "@/lib/dashboard/api-types";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { liveCase } from "@/tests/support/dashboard-records";
import { adminCookie, dashboardClient } from "@/tests/support/dashboard-session";
import { createTestDatabase } from "@/tests/support/test-database";

// Issue 20: reconciled items vanished from their queue — the Resolved tab stayed at 0 after three reconciles and
// All omitted them, because reconciliation moves the chain out of effect_unknown. They belong under Resolved.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let ui: ReturnType<typeof dashboardClient>;
let agent: ReturnType<typeof apiClient>;

const queuePage = (status: string, extra = "") =>
  ui.json<QueuePage>(`/api/v1/queues/effect-unknown?status=${status}${extra}`);
const ids = (page: QueuePage) => page.entries.map((entry) => entry.chain.chainId);

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startApp(db.url);
  agent = apiClient(app.baseUrl, await createTestKey(db.url, "agent", ["ingest", "read"]));
  ui = dashboardClient(app.baseUrl, await adminCookie(app.baseUrl));
});
afterAll(async () => {
  await app?.stop();
  await db?.drop();
});

describe("the effect-unknown queue after three reconciles", () => {
  const reconciled = ["first", "second", "third"].map((tag) =>
    liveCase(`reconciled-${tag}`, "effect_unknown"),
  );
  const stillOpen = liveCase("still-open", "effect_unknown");

  beforeAll(async () => {
    const response = await agent.post([...reconciled, stillOpen]);
    expect(response.status, await response.clone().text()).toBe(200);
    const before = await queuePage("open");
    expect(before.counts).toEqual({ open: 4, acknowledged: 0, resolved: 0 });
    for (const [index, timeout] of reconciled.entries()) {
      const body =
        index === 1 ? { status: "committed", receipt: `reports/${index}@v1` } : { status: "absent" };
      const path = `/api/v1/chains/${encodeURIComponent(timeout.chainId)}/reconcile`;
      const answer = await ui.post(path, body);
      expect(answer.status, await answer.clone().text()).toBe(200);
    }
  });

  it("Resolved counts and lists the three reconciled chains, marked as having left the queue's state", async () => {
    const resolved = await queuePage("resolved");
    expect(resolved.counts).toEqual({ open: 1, acknowledged: 0, resolved: 3 });
    expect(ids(resolved).sort()).toEqual(reconciled.map((record) => record.chainId).sort());
    for (const entry of resolved.entries) {
      expect(entry.matchedBy).toBe("left_queue");
      expect(entry.triage).toMatchObject({ status: "resolved", resolvedBy: "admin" });
      expect(entry.chain.state).not.toBe("effect_unknown");
    }
  });

  it("Open keeps only the chain nobody reconciled", async () => {
    expect(ids(await queuePage("open"))).toEqual([stillOpen.chainId]);
  });

  it("All includes the open chain and the three resolved ones", async () => {
    const all = await queuePage("all");
    expect(ids(all).sort()).toEqual([stillOpen, ...reconciled].map((record) => record.chainId).sort());
    expect(all.entries.find((entry) => entry.chain.chainId === stillOpen.chainId)?.matchedBy).toBe("state");
  });

  it("pages through All without losing or repeating a chain", async () => {
    const seen: string[] = [];
    let cursor: string | null = "";
    while (cursor !== null) {
      const page: QueuePage = await queuePage(
        "all",
        `&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      expect(page.entries.length).toBeLessThanOrEqual(2);
      seen.push(...ids(page));
      cursor = page.nextCursor;
    }
    expect(seen.sort()).toEqual([stillOpen, ...reconciled].map((record) => record.chainId).sort());
  });
});
