// The header search's endpoint on the built app and real PostgreSQL: each kind of id, exact then by prefix, where
// it jumps, tokens narrowing words or naming the chain list, bounded answers, refusals with their paths and tokens;
// and the pages' 404 for an unknown chain or session.
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

/** Chains under one server and label, for the tokens: a healthy call and a false success. */
function tokenCase(record: HealthRecord): HealthRecord {
  if (!record.session.server) throw new Error("the seed cases name their server");
  record.session.server.name = "srv-search-tok";
  record.labels = { ...record.labels, team: "search-team" };
  return record;
}
const tokHealthy = tokenCase(call("tok-a", "req-search-tok-a"));
const tokFalse = tokenCase(liveCase("search-tok-b", "false_success"));

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startApp(db.url);
  api = apiClient(app.baseUrl, await createTestKey(db.url, "reader", ["ingest", "read"]));
  ingestOnly = apiClient(app.baseUrl, await createTestKey(db.url, "agent", ["ingest"]));
  ui = dashboardClient(app.baseUrl, await adminCookie(app.baseUrl));
  const response = await api.post([single, numeric, sharedA, sharedB, tokHealthy, tokFalse]);
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
    expect(found.sessions).toEqual([
      { sessionId: single.session.id, chains: 1, moreChains: false, match: "exact" },
    ]);
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

  it("an unknown id finds nothing", async () => {
    expect(await search("req-search-nothing")).toMatchObject({ sessions: [], chains: [], target: null });
  });
});

describe("prefixes", () => {
  it("a request id's prefix finds its chain as a prefix match, and jumps nowhere", async () => {
    const found = await search("req-search-sing");
    expect(found.chains.map((c) => [c.chainId, c.matchedBy, c.match])).toEqual([
      [single.chainId, "request_id", "prefix"],
    ]);
    expect(found.target).toBeNull();
  });

  it("chain id, session id and operation key prefixes match; exact matches come first", async () => {
    const byChain = await search(single.chainId.slice(0, -3));
    expect(byChain.chains.map((c) => [c.chainId, c.match])).toContainEqual([single.chainId, "prefix"]);
    const bySession = await search(single.session.id.slice(0, -3));
    expect(bySession.sessions).toContainEqual({
      sessionId: single.session.id,
      chains: 1,
      moreChains: false,
      match: "prefix",
    });
    const byOperation = await search("op:search-sin");
    expect(byOperation.chains.map((c) => [c.chainId, c.matchedBy, c.match])).toEqual([
      [single.chainId, "operation_key", "prefix"],
    ]);
    const shared = await search("req-search-s");
    expect(shared.chains.map((c) => c.chainId).sort()).toEqual(
      [single.chainId, sharedA.chainId, sharedB.chainId].sort(),
    );
    const exactFirst = await search(`req-search-shared ${"req-search-s"}`);
    expect(exactFirst.chains.slice(0, 2).map((c) => c.match)).toEqual(["exact", "exact"]);
    expect(exactFirst.chains[2]).toMatchObject({ chainId: single.chainId, match: "prefix" });
  });

  it("LIKE's wildcards in a word are plain characters", async () => {
    expect((await search("req-search-%")).chains).toEqual([]);
    expect((await search("req_search_single")).chains).toEqual([]);
  });
});

describe("tokens", () => {
  it("tokens alone name the chain list with the same filters, which lists exactly those chains", async () => {
    const found = await search("server:srv-search-tok state:false_success");
    expect(found).toMatchObject({ chains: [], sessions: [] });
    expect(found.target).toBe("/chains?state=false_success&server=srv-search-tok");
    expect(found.chainsPath).toBe(found.target);
    const list = await api.get(`/api/v1${found.target}`);
    expect(list.status).toBe(200);
    const body = (await list.json()) as { chains: { chainId: string }[] };
    expect(body.chains.map((c) => c.chainId)).toEqual([tokFalse.chainId]);
    expect((await search("label:team:search-team")).target).toBe("/chains?label=team%3Asearch-team");
  });

  it("tokens narrow the words' matches: server, tool, state (any of several) and label", async () => {
    const ids = async (q: string) => (await search(q)).chains.map((c) => c.chainId);
    expect(await ids("req-search-tok server:srv-search-tok")).toEqual([tokHealthy.chainId]);
    expect(await ids("req-search-tok server:another")).toEqual([]);
    expect(await ids(`req-search-tok tool:${tokHealthy.call?.tool}`)).toEqual([tokHealthy.chainId]);
    expect(await ids("req-search-tok state:false_success")).toEqual([]);
    expect(await ids("req-search-tok state:false_success state:healthy")).toEqual([tokHealthy.chainId]);
    expect(await ids("req-search-tok label:team:search-team")).toEqual([tokHealthy.chainId]);
    expect(await ids("req-search-tok label:team:other")).toEqual([]);
    const narrowed = await search("req-search-tok server:srv-search-tok");
    expect(narrowed.chainsPath).toBe("/chains?server=srv-search-tok");
  });

  it("a word shaped like a token is an id when ids start with it, even under tokens that exclude them", async () => {
    expect((await search("op:search-single")).chains.map((c) => c.matchedBy)).toEqual(["operation_key"]);
    const excluded = await api.get(
      `/api/v1/search?q=${encodeURIComponent("op:search-single server:another")}`,
    );
    expect(excluded.status).toBe(200);
  });
});

describe("refusals", () => {
  it.each([
    ["empty", "q="],
    ["blank", "q=%20%20"],
    ["missing", ""],
    ["too long", `q=${"x".repeat(513)}`],
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

describe("label values for the box's suggestions", () => {
  it("lists a key's stored values, filtered by a prefix; refuses a bad key with its path", async () => {
    const values = await api.get("/api/v1/search/label-values?key=team");
    expect(values.status).toBe(200);
    expect(((await values.json()) as { values: string[] }).values).toContain("search-team");
    const filtered = await api.get("/api/v1/search/label-values?key=team&prefix=SEARCH-T");
    expect(await filtered.json()).toEqual({ values: ["search-team"] });
    const bad = await api.get("/api/v1/search/label-values?key=Team");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: { code: "invalid_query", issues: [{ path: "$.query.key" }] },
    });
    expect((await ingestOnly.get("/api/v1/search/label-values?key=team")).status).toBe(403);
  });
});

describe("refused tokens", () => {
  it.each([
    ["an unknown key", "abc env:prod", "unknown_token", "env:prod", 4],
    ["an unknown state", "state:bogus", "unknown_state", "state:bogus", 0],
    ["a key without a value", "req-search-single server:", "missing_value", "server:", 18],
    ["a label without a value", "label:team", "invalid_label", "label:team", 0],
    ["an unclosed quote", 'server:"files', "unclosed_quote", 'server:"files', 0],
    ["two servers", "server:a server:b", "repeated_token", "server:b", 9],
    ["a quoted empty word", '""', "empty_query", "", 0],
  ])("%s is a 422 naming the token at $.query.q", async (_name, q, code, text, start) => {
    const response = await api.get(`/api/v1/search?q=${encodeURIComponent(q)}`);
    expect(response.status).toBe(422);
    const body = (await response.json()) as { error: { code: string; issues: Record<string, unknown>[] } };
    expect(body.error.code).toBe("invalid_search");
    expect(body.error.issues).toEqual([
      {
        path: "$.query.q",
        code,
        message: expect.any(String),
        token: { text, start, end: start + text.length },
      },
    ]);
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
