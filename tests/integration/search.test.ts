// The header search's endpoint on the built app and real PostgreSQL: each kind of id, where it jumps, bounded
// answers, refusals with their paths; and the pages' 404 for an unknown chain or session.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HealthRecord } from "@/lib/contract";
import type { SearchResults } from "@/lib/dashboard/api-types";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { liveCase } from "@/tests/support/dashboard-records";
import { adminCookie, dashboardClient } from "@/tests/support/dashboard-session";
import { createTestDatabase } from "@/tests/support/test-database";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let api: ReturnType<typeof apiClient>;
let ingestOnly: ReturnType<typeof apiClient>;
let ui: ReturnType<typeof dashboardClient>;

/** A healthy call under its own ids, with the request id and operation key given. */
function call(tag: string, requestId: string | number, operationKey?: string): HealthRecord {
  const record = liveCase(`search-${tag}`, "healthy");
  if (!record.call) throw new Error("the healthy seed case has a call");
  record.call.requestId = requestId;
  if (operationKey) record.call.operationKey = operationKey;
  else delete record.call.operationKey;
  return record;
}

const single = call("single", "req-search-single", "op:search-single");
const numeric = call("numeric", 987654321);
const sharedA = call("shared-a", "req-search-shared");
const sharedB = call("shared-b", "req-search-shared");

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startApp(db.url);
  api = apiClient(app.baseUrl, await createTestKey(db.url, "reader", ["ingest", "read"]));
  ingestOnly = apiClient(app.baseUrl, await createTestKey(db.url, "agent", ["ingest"]));
  ui = dashboardClient(app.baseUrl, await adminCookie(app.baseUrl));
  const response = await api.post([single, numeric, sharedA, sharedB]);
  expect(response.status, await response.text()).toBe(200);
});
afterAll(async () => {
  await app?.stop();
  await db?.drop();
});

async function search(q: string): Promise<SearchResults> {
  const response = await api.get(`/api/v1/search?q=${encodeURIComponent(q)}`);
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as SearchResults;
}

describe("each kind of id", () => {
  it("a chain id jumps to its chain", async () => {
    const found = await search(single.chainId);
    expect(found.chains.map((c) => [c.chainId, c.matchedBy])).toEqual([[single.chainId, "chain_id"]]);
    expect(found.target).toBe(`/chains/${encodeURIComponent(single.chainId)}`);
  });

  it("a session id jumps to its session, with its chain count", async () => {
    const found = await search(single.session.id);
    expect(found.sessions).toEqual([{ sessionId: single.session.id, chains: 1, moreChains: false }]);
    expect(found.chains).toEqual([]);
    expect(found.target).toBe(`/sessions/${encodeURIComponent(single.session.id)}`);
  });

  it("a string request id, a number request id and an operation key each find their chain", async () => {
    const byRequest = await search("req-search-single");
    expect(byRequest.chains.map((c) => [c.chainId, c.matchedBy])).toEqual([[single.chainId, "request_id"]]);
    expect(byRequest.target).toBe(`/chains/${encodeURIComponent(single.chainId)}`);
    const byNumber = await search("987654321");
    expect(byNumber.chains.map((c) => [c.chainId, c.matchedBy])).toEqual([[numeric.chainId, "request_id"]]);
    const byOperation = await search("op:search-single");
    expect(byOperation.chains.map((c) => [c.chainId, c.matchedBy])).toEqual([
      [single.chainId, "operation_key"],
    ]);
  });

  it("an id several chains share lists them all and jumps nowhere", async () => {
    const found = await search("req-search-shared");
    expect(found.chains.map((c) => c.chainId).sort()).toEqual([sharedA.chainId, sharedB.chainId].sort());
    expect(found.target).toBeNull();
    expect(found.more).toBe(false);
  });

  it("an unknown id finds nothing; a prefix is not a match", async () => {
    expect(await search("req-search-nothing")).toMatchObject({ sessions: [], chains: [], target: null });
    expect((await search("req-search-sing")).chains).toEqual([]);
  });
});

describe("refusals", () => {
  it.each([
    ["empty", "q="],
    ["blank", "q=%20%20"],
    ["missing", ""],
    ["too long", `q=${"x".repeat(257)}`],
    ["NUL", "q=a%00b"],
    ["repeated", "q=a&q=b"],
  ])("%s q is a 400 invalid_query at $.query.q", async (_name, query) => {
    const response = await api.get(`/api/v1/search?${query}`);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: "invalid_query", issues: [{ path: "$.query.q" }] },
    });
  });

  it("an unknown parameter is a 400; a key without the read scope is a 403", async () => {
    const extra = await api.get("/api/v1/search?q=a&limit=5");
    expect(extra.status).toBe(400);
    expect((await ingestOnly.get("/api/v1/search?q=a")).status).toBe(403);
  });
});

describe("pages of unknown ids", () => {
  it("an unknown chain or session page answers 404; a known one 200; the API 404s too", async () => {
    expect((await ui.get(`/chains/${encodeURIComponent(single.chainId)}`)).status).toBe(200);
    const missing = await ui.get("/chains/chain:search-never-recorded");
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain("No chain with this id");
    expect((await ui.get(`/sessions/${encodeURIComponent(single.session.id)}`)).status).toBe(200);
    expect((await ui.get("/sessions/sess:search-never-recorded")).status).toBe(404);
    expect((await api.get("/api/v1/chains/chain:search-never-recorded")).status).toBe(404);
    expect((await api.get("/api/v1/sessions/sess:search-never-recorded")).status).toBe(404);
  });

  it("serves the favicon and links it", async () => {
    const icon = await ui.get("/icon.svg");
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toContain("image/svg+xml");
    expect(await (await ui.get("/chains")).text()).toMatch(/<link rel="icon" href="\/icon\.svg[^"]*"/);
  });
});

describe("the migration", () => {
  it("backfills request ids and operation keys of chains stored before it from their current record", async () => {
    const folder = readdirSync("prisma/migrations").find((name) => name.endsWith("_search_indexes"));
    const script = readFileSync(path.join("prisma/migrations", folder ?? "", "migration.sql"), "utf8");
    const backfill = script.split(";").find((statement) => statement.includes('UPDATE "chains"'));
    expect(backfill).toBeDefined();
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const ids = [single.chainId, numeric.chainId];
      await client.query(
        "update chains set request_id = null, operation_key = null where chain_id = any($1)",
        [ids],
      );
      await client.query(backfill ?? "");
      const { rows } = await client.query(
        "select chain_id, request_id, operation_key from chains where chain_id = any($1) order by chain_id",
        [ids],
      );
      expect(rows).toEqual(
        [
          { chain_id: single.chainId, request_id: "req-search-single", operation_key: "op:search-single" },
          { chain_id: numeric.chainId, request_id: "987654321", operation_key: null },
        ].sort((a, b) => (a.chain_id < b.chain_id ? -1 : 1)),
      );
    } finally {
      await client.end();
    }
  });
});
