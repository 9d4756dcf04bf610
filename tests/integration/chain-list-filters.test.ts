// The chain list's filters on the built app and real PostgreSQL: several states at once (also as shadowed
// states), the capped total, the danger order across pages, relative ranges resolved per request, refusals.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STATE_SEVERITY_ORDER, type State } from "@/lib/contract";
import type { ChainPage } from "@/lib/dashboard/api-types";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { liveCase, liveSeedCases, shadowedTimeout } from "@/tests/support/dashboard-records";
import { createTestDatabase } from "@/tests/support/test-database";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let api: ReturnType<typeof apiClient>;
const now = Date.now();
const cases = liveSeedCases("filters", now);
const shadowed = shadowedTimeout("filters", now); // needs_auth, shadowed effect_unknown
const old = liveCase("filters-old", "false_success", now - 2 * 3_600_000); // observed two hours ago

beforeAll(async () => {
  db = await createTestDatabase();
  const key = await createTestKey(db.url, "agent", ["ingest", "read"]);
  app = await startApp(db.url);
  api = apiClient(app.baseUrl, key);
  const response = await api.post([...cases.map((c) => c.record), shadowed, old]);
  expect(response.status, await response.text()).toBe(200);
});
afterAll(async () => {
  await app?.stop();
  await db?.drop();
});

async function page(query: string): Promise<ChainPage> {
  const response = await api.get(`/api/v1/chains?${query}`);
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as ChainPage;
}

const ids = (p: ChainPage) => p.chains.map((c) => c.chainId).sort();

describe("several states at once", () => {
  it("state=a,b and repeated state= find the same chains, current or shadowed", async () => {
    const commas = await page("state=false_success,effect_unknown");
    const repeated = await page("state=false_success&state=effect_unknown");
    const expected = [
      ...cases
        .filter((c) => ["false_success", "effect_unknown"].includes(c.expectedState))
        .map((c) => c.record),
      shadowed,
      old,
    ].map((r) => r.chainId);
    expect(ids(commas)).toEqual(expected.sort());
    expect(ids(repeated)).toEqual(ids(commas));
    expect(commas.total).toEqual({ count: 4, capped: false });
    const viaShadow = commas.chains.find((c) => c.chainId === shadowed.chainId);
    expect(viaShadow).toMatchObject({ state: "needs_auth", matchedBy: "shadowed" });
  });

  it("an unknown state among known ones is a 400 at $.query.state", async () => {
    const response = await api.get("/api/v1/chains?state=healthy,green");
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: "invalid_query", issues: [{ path: "$.query.state" }] },
    });
  });
});

describe("relative ranges", () => {
  it("since=1h leaves out the chain of two hours ago; since=24h and an absolute time include it", async () => {
    const hour = await page("since=1h&limit=200");
    expect(ids(hour)).not.toContain(old.chainId);
    expect(hour.total.count).toBe(cases.length + 1);
    expect(ids(await page("since=24h&limit=200"))).toContain(old.chainId);
    const absolute = new Date(now - 3 * 3_600_000).toISOString();
    expect(ids(await page(`since=${encodeURIComponent(absolute)}&limit=200`))).toContain(old.chainId);
  });

  it("a since that is neither is a 400 at $.query.since", async () => {
    const response = await api.get("/api/v1/chains?since=1w");
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { issues: [{ path: "$.query.since" }] } });
  });
});

describe("sort by danger", () => {
  it("pages most dangerous first, newest first within a state, and covers every chain once", async () => {
    const seen: { chainId: string; state: State; observedAt: string }[] = [];
    let cursor: string | null = null;
    do {
      const next: ChainPage = await page(`sort=danger&limit=3${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...next.chains);
      cursor = next.nextCursor;
    } while (cursor);
    expect(seen.map((c) => c.chainId).sort()).toEqual(ids(await page("limit=200")));
    const rank = (s: State) => STATE_SEVERITY_ORDER.indexOf(s);
    for (let i = 1; i < seen.length; i++) {
      const [a, b] = [seen[i - 1], seen[i]] as [(typeof seen)[number], (typeof seen)[number]];
      expect(rank(a.state)).toBeLessThanOrEqual(rank(b.state));
      if (a.state === b.state) expect(a.observedAt >= b.observedAt).toBe(true);
    }
    expect(seen[0]?.state).toBe("effect_unknown");
    expect(seen.at(-1)?.state).toBe("healthy");
  });

  it("combines with several states", async () => {
    const danger = await page("sort=danger&state=needs_auth,effect_unknown");
    expect(danger.chains.map((c) => c.state)).toEqual(["effect_unknown", "needs_auth", "needs_auth"]);
  });

  it("an unknown sort is a 400 at $.query.sort", async () => {
    const response = await api.get("/api/v1/chains?sort=name");
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { issues: [{ path: "$.query.sort" }] } });
  });
});

describe("the total is capped", () => {
  it("past 10,000 matches it says capped instead of counting on", async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query(
        `insert into chains (chain_id, session_id, state, layer, reasons, current_record_id, current_seq,
            observed_at, evaluated_at, client_name, client_version, transport, server_name)
          select 'cap:' || n, 'cap-session', 'healthy', 'outcome', '{}', 'cap-rec:' || n, n,
            now() - interval '30 days', now(), 'cap-client', '1', 'stdio', 'cap-server'
          from generate_series(1, 10050) n`,
      );
    } finally {
      await client.end();
    }
    const capped = await page("server=cap-server&limit=5");
    expect(capped.total).toEqual({ count: 10_000, capped: true });
    expect(capped.chains).toHaveLength(5);
    // A state filter alone is counted on the state index (then the shadowed-only rest): capped the same way.
    expect((await page("state=healthy&limit=5")).total).toEqual({ count: 10_000, capped: true });
    const exact = await page("server=cap-server&since=1h");
    expect(exact.total).toEqual({ count: 0, capped: false });
  });
});
