import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HealthRecord } from "@/lib/contract";
import type { ChainPage } from "@/lib/dashboard/api-types";
import {
  PROBLEM_SESSION_SAMPLE,
  type Problem,
  type ProblemResolutionResult,
  type ProblemsPage,
} from "@/lib/problems/types";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { liveCase } from "@/tests/support/dashboard-records";
import { adminCookie, dashboardClient } from "@/tests/support/dashboard-session";
import { createTestDatabase } from "@/tests/support/test-database";

// Problems: chains grouped by (server, tool, state, deciding reason) over a window, resolvable, regressing when a
// chain of a resolved problem is stored again. Real database, the built app.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let ui: ReturnType<typeof dashboardClient>;
let agent: ReturnType<typeof apiClient>;
let agentKey: string;

/** A timed-out write (effect_unknown) on `server`, in `session`, under fresh ids. */
function timeoutOn(server: string, session: string): HealthRecord {
  const record = liveCase(`p-${randomUUID()}`, "effect_unknown");
  return {
    ...record,
    session: { ...record.session, id: session, server: { name: server, version: "1.0.0" } },
  };
}
function failureOn(server: string): HealthRecord {
  const record = liveCase(`p-${randomUUID()}`, "tool_failed");
  return { ...record, session: { ...record.session, server: { name: server, version: "1.0.0" } } };
}

async function ingest(...records: HealthRecord[]) {
  const response = await agent.post(records);
  expect(response.status, await response.clone().text()).toBe(200);
}
const problemsOf = async (server: string, extra = "") =>
  (await ui.json<ProblemsPage>(`/api/v1/problems?server=${server}${extra}`)).problems;
const act = (key: string, action: "resolve" | "reopen") => ui.post(`/api/v1/problems/${key}/${action}`, {});

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

describe("sessions past the sample", () => {
  // Distinct sessions are counted among a problem's newest PROBLEM_SESSION_SAMPLE chains: the newest chains come four
  // to a session, the older ones (past the sample) one each.
  const timeouts = (server: string, count: number) => {
    const newest = Date.now() - 1000;
    return Array.from({ length: count }, (_, index) => ({
      ...timeoutOn(server, index < PROBLEM_SESSION_SAMPLE ? `s-${Math.floor(index / 4)}` : `old-${index}`),
      observedAt: new Date(newest - index * 10).toISOString(),
    }));
  };

  it("exact up to the sample; past it, the sample's sessions and sessionsCapped", async () => {
    const full = `sample-full-${randomUUID().slice(0, 8)}`;
    const past = `sample-past-${randomUUID().slice(0, 8)}`;
    await ingest(...timeouts(full, PROBLEM_SESSION_SAMPLE));
    await ingest(...timeouts(past, PROBLEM_SESSION_SAMPLE + 20));
    expect(await problemsOf(full)).toMatchObject([
      { count: PROBLEM_SESSION_SAMPLE, sessions: PROBLEM_SESSION_SAMPLE / 4, sessionsCapped: false },
    ]);
    expect(await problemsOf(past)).toMatchObject([
      { count: PROBLEM_SESSION_SAMPLE + 20, sessions: PROBLEM_SESSION_SAMPLE / 4, sessionsCapped: true },
    ]);
  });
});

describe("grouping", () => {
  const server = `grouping-${randomUUID().slice(0, 8)}`;
  const records = [
    timeoutOn(server, "s-a"),
    timeoutOn(server, "s-a"),
    timeoutOn(server, "s-b"),
    failureOn(server),
  ];
  let problems: Problem[];
  beforeAll(async () => {
    await ingest(...records);
    problems = await problemsOf(server);
  });

  it("one problem per server, tool, state and deciding reason, with chains, sessions, first and last seen", () => {
    expect(problems.map((problem) => problem.state).sort()).toEqual(["effect_unknown", "tool_failed"]);
    const timeouts = problems.find((problem) => problem.state === "effect_unknown");
    expect(timeouts).toMatchObject({ server, count: 3, sessions: 2, status: "open", resolution: null });
    expect(timeouts?.tool).toBe(records[0]?.call?.tool);
    expect(timeouts?.key).toMatch(/^[0-9a-f]{32}$/);
    const observed = records.slice(0, 3).map((record) => Date.parse(record.observedAt));
    expect(Date.parse(timeouts?.lastSeen ?? "")).toBe(Math.max(...observed));
  });

  it("the trend has every bucket of the window (7 d: 28) and sums to the count", async () => {
    for (const problem of problems) {
      expect(problem.trend).toHaveLength(28);
      expect(problem.trend.reduce((sum, n) => sum + n, 0)).toBe(problem.count);
    }
    const day = await problemsOf(server, "&window=24h&state=tool_failed");
    expect(day).toHaveLength(1);
    expect(day[0]?.trend).toHaveLength(24);
  });

  it("filters by text, sorts by count", async () => {
    expect((await problemsOf(server, "&text=TOOL_FAIL")).map((problem) => problem.state)).toEqual([
      "tool_failed",
    ]);
    expect((await problemsOf(server, "&sort=count")).map((problem) => problem.count)).toEqual([3, 1]);
  });

  it("the chain list's reason filter opens a problem's chains", async () => {
    const timeouts = problems.find((problem) => problem.state === "effect_unknown");
    const query = new URLSearchParams({
      server,
      tool: timeouts?.tool ?? "",
      state: "effect_unknown",
      reason: timeouts?.reason ?? "",
    });
    const page = await ui.json<ChainPage>(`/api/v1/chains?${query}`);
    expect(page.chains.map((chain) => chain.chainId).sort()).toEqual(
      records
        .slice(0, 3)
        .map((record) => record.chainId)
        .sort(),
    );
    const none = await ui.json<ChainPage>(`/api/v1/chains?server=${server}&reason=no.such_reason`);
    expect(none.chains).toEqual([]);
  });
});

describe("resolving and regressions", () => {
  const server = `regress-${randomUUID().slice(0, 8)}`;
  let key: string;
  beforeAll(async () => {
    await ingest(timeoutOn(server, "s-r"));
    key = (await problemsOf(server))[0]?.key ?? "";
  });

  it("resolve takes the problem off the open list; resolving twice keeps the first resolution", async () => {
    const first = await act(key, "resolve");
    expect(first.status).toBe(200);
    const resolved = (await first.json()) as ProblemResolutionResult;
    expect(resolved).toMatchObject({ key, status: "resolved", resolution: { resolvedBy: "admin" } });
    const again = await act(key, "resolve");
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ key, status: "resolved", resolution: resolved.resolution });
    expect(await problemsOf(server)).toEqual([]);
    expect(await problemsOf(server, "&status=resolved")).toMatchObject([{ key, status: "resolved" }]);
  });

  it("a new chain of the resolved problem brings it back open, marked regressed", async () => {
    await ingest(timeoutOn(server, "s-r2"));
    expect(await problemsOf(server)).toMatchObject([{ key, status: "regressed", count: 2, sessions: 2 }]);
    expect(await problemsOf(server, "&status=resolved")).toEqual([]);
  });

  it("resolving a regression resolves it again from now; reopen forgets the resolution", async () => {
    const before = (await problemsOf(server))[0]?.resolution?.resolvedAt ?? "";
    const again = (await (await act(key, "resolve")).json()) as ProblemResolutionResult;
    expect(again.status).toBe("resolved");
    expect(Date.parse(again.resolution?.resolvedAt ?? "")).toBeGreaterThan(Date.parse(before));
    const reopened = await act(key, "reopen");
    expect(reopened.status).toBe(200);
    expect(await reopened.json()).toEqual({ key, status: "open", resolution: null });
    expect(await problemsOf(server)).toMatchObject([{ key, status: "open", resolution: null }]);
  });

  it("an unknown problem key is 404 not_found; an ingestion key may not resolve (403)", async () => {
    for (const unknown of ["0".repeat(32), "not-a-key"]) {
      const response = await act(unknown, "resolve");
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: { code: "not_found" } });
      expect((await act(unknown, "reopen")).status).toBe(404);
    }
    const response = await fetch(`${app.baseUrl}/api/v1/problems/${key}/resolve`, {
      method: "POST",
      headers: { authorization: `Bearer ${agentKey}` },
    });
    expect(response.status).toBe(403);
  });
});

describe("bad queries", () => {
  it.each([
    ["window=2h", "$.query.window"],
    ["state=broken", "$.query.state"],
    ["sort=size", "$.query.sort"],
    ["limit=0", "$.query.limit"],
    ["bogus=1", "$.query"],
    [`text=${"x".repeat(129)}`, "$.query.text"],
  ])("%s → 400 invalid_query at %s", async (query, path) => {
    const response = await ui.get(`/api/v1/problems?${query}`);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: "invalid_query", issues: [{ path }] } });
  });
});
