import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Call } from "@/lib/contract";
import type { ChainSummary, Coverage, Facets, Trend } from "@/lib/dashboard/api-types";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { liveSeedCases } from "@/tests/support/dashboard-records";
import { adminCookie, dashboardClient } from "@/tests/support/dashboard-session";
import { createTestDatabase } from "@/tests/support/test-database";

// The overview's, coverage report's and filter form's read endpoints, over the nine seed cases as if just observed.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let ui: ReturnType<typeof dashboardClient>;
let readKey: string;
const cases = liveSeedCases("reads");

beforeAll(async () => {
  db = await createTestDatabase();
  readKey = await createTestKey(db.url, "agent", ["ingest", "read"]);
  app = await startApp(db.url);
  ui = dashboardClient(app.baseUrl, await adminCookie(app.baseUrl));
  const response = await apiClient(app.baseUrl, readKey).post(cases.map((c) => c.record));
  expect(response.status).toBe(200);
});
afterAll(async () => {
  await app?.stop();
  await db?.drop();
});

describe("trend", () => {
  it("buckets every chain of the window by state, with every bucket present", async () => {
    const trend = await ui.json<Trend>("/api/v1/stats/trend?window=1h");
    expect(trend).toMatchObject({ window: "1h", bucketMs: 300_000 });
    expect(trend.buckets.length).toBeGreaterThanOrEqual(12);
    const totals: Record<string, number> = {};
    for (const bucket of trend.buckets) {
      for (const [state, n] of Object.entries(bucket.counts)) totals[state] = (totals[state] ?? 0) + (n ?? 0);
    }
    const expected: Record<string, number> = {};
    for (const c of cases) expected[c.expectedState] = (expected[c.expectedState] ?? 0) + 1;
    expect(totals).toEqual(expected);
  });

  it("an unknown window or parameter → 400 with its path", async () => {
    const bad = await ui.get("/api/v1/stats/trend?window=2d");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: { code: "invalid_query", issues: [{ path: "$.query.window" }] },
    });
    const unknown = await ui.get("/api/v1/stats/trend?bucket=5m");
    expect(await unknown.json()).toMatchObject({
      error: { issues: [{ path: "$.query", code: "unrecognized_keys", message: "unknown query parameter" }] },
    });
  });
});

describe("attention", () => {
  it("lists the newest chains that need a person: never healthy, never in flight", async () => {
    const { chains } = (await (await ui.get("/api/v1/attention?limit=20")).json()) as {
      chains: ChainSummary[];
    };
    expect(chains.map((chain) => chain.state).sort()).toEqual(
      cases
        .map((c) => c.expectedState)
        .filter((state) => state !== "healthy" && state !== "working")
        .sort(),
    );
    const times = chains.map((chain) => chain.observedAt);
    expect(times).toEqual([...times].sort().reverse());
  });

  it("limit outside 1–50 → 400 at $.query.limit", async () => {
    const response = await ui.get("/api/v1/attention?limit=0");
    expect(await response.json()).toMatchObject({ error: { issues: [{ path: "$.query.limit" }] } });
  });
});

describe("coverage", () => {
  it("partitions every call: receipt, pending, unavailable, no verifier, not reached", async () => {
    const coverage = await ui.json<Coverage>("/api/v1/coverage");
    for (const row of coverage.rows) {
      expect(row.withReceipt + row.pending + row.unavailable + row.noVerifier + row.notReached).toBe(
        row.calls,
      );
    }
    expect(coverage.totals.calls).toBe(cases.filter((c) => c.record.call).length);
    // Of the nine seed cases only the healthy export reached the outcome check (with a receipt): the false success was
    // decided by the destination (effect.absent) before any verifier; the rest failed, are in doubt, in flight or
    // stopped at the session or catalog.
    expect(coverage.totals).toMatchObject({
      withReceipt: 1,
      weak: 0,
      pending: 0,
      unavailable: 0,
      noVerifier: 0,
    });
  });

  it("counts unverified calls by why (pending, unavailable, no verifier) and weak receipts apart", async () => {
    const healthy = cases.find((c) => c.expectedState === "healthy")?.record;
    const outcome = healthy?.call?.outcome;
    if (!healthy || !outcome) throw new Error("the healthy seed case has an outcome");
    const variants: [string, (call: Call) => void][] = [
      ["pending", (call) => delete call.outcome],
      ["unavailable", (call) => (call.outcome = { ...outcome, verdict: "unavailable" })],
      [
        "none",
        (call) => {
          delete call.outcome;
          delete call.expectedVerifier;
        },
      ],
      ["weak", (call) => (call.outcome = { ...outcome, verifier: "llm_judge" })],
    ];
    const records = variants.map(([id, change]) => {
      const record = structuredClone(healthy);
      record.recordId = `${record.recordId}:${id}`;
      record.chainId = `${record.chainId}:${id}`;
      if (record.call) {
        record.call.tool = "coverage_probe";
        change(record.call);
      }
      return record;
    });
    expect((await apiClient(app.baseUrl, readKey).post(records)).status).toBe(200);
    const coverage = await ui.json<Coverage>("/api/v1/coverage");
    expect(coverage.rows.find((row) => row.tool === "coverage_probe")).toMatchObject({
      calls: 4,
      withReceipt: 1,
      weak: 1,
      pending: 1,
      unavailable: 1,
      noVerifier: 1,
      notReached: 0,
    });
  });

  it("since in the future → no calls; a bad since → 400", async () => {
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await ui.json<Coverage>(`/api/v1/coverage?since=${future}`)).totals.calls).toBe(0);
    expect((await ui.get("/api/v1/coverage?since=yesterday")).status).toBe(400);
  });
});

describe("facets", () => {
  it("offers the servers, clients, tools and label keys seen", async () => {
    const facets = await ui.json<Facets>("/api/v1/facets");
    expect(facets.servers).toContain("reports-mcp");
    expect(facets.tools).toContain("create_report");
    expect(facets.labelKeys).toEqual(expect.arrayContaining(["env", "team"]));
    expect((await ui.get("/api/v1/facets?x=1")).status).toBe(400);
  });

  it("every read endpoint refuses an anonymous caller (401)", async () => {
    for (const path of ["/api/v1/facets", "/api/v1/coverage", "/api/v1/attention", "/api/v1/stats/trend"]) {
      expect((await fetch(`${app.baseUrl}${path}`)).status, path).toBe(401);
    }
  });
});
