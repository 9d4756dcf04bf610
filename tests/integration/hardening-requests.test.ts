// Issue 17 item 2: bad requests to the read and dashboard endpoints — undecodable or NUL path ids, crafted cursors,
// NUL and out-of-range query values, unstorable strings and dates in small JSON bodies — are 4xx with a code and a
// JSON path, never a 500. Each row asserts exactly what the real app answers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ROUTING_CONFIG } from "@/lib/routing/defaults";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import {
  CRAFTED_CURSORS,
  cursorOf,
  expectError,
  PATH_ENDPOINTS,
  pathOf,
  UNDECODABLE_SEGMENTS,
} from "@/tests/support/bad-input";
import { adminCookie, dashboardClient } from "@/tests/support/dashboard-session";
import { createTestDatabase } from "@/tests/support/test-database";
import { build, legacyRecord } from "@/tests/support/record-builders";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let key: string;
let cookie: string;

beforeAll(async () => {
  db = await createTestDatabase();
  key = await createTestKey(db.url, "hardening", ["ingest", "read"]);
  app = await startApp(db.url);
  cookie = await adminCookie(app.baseUrl);
});
afterAll(async () => {
  await app?.stop();
  await db?.drop();
});

const api = () => apiClient(app.baseUrl, key);
const dashboard = () => dashboardClient(app.baseUrl, cookie);
const NUL = "a\u0000b";
const LONE = "a\uDC00b";

describe("path ids (400 invalid_path)", () => {
  const send = (method: string, path: string, auth = true) =>
    fetch(`${app.baseUrl}${path}`, {
      method,
      headers: auth ? { cookie, "content-type": "application/json" } : { "content-type": "application/json" },
      ...(method === "GET" || method === "DELETE" ? {} : { body: "{}" }),
    });

  for (const endpoint of PATH_ENDPOINTS) {
    it(`${endpoint.method} ${endpoint.template}: undecodable, NUL and over-long segments`, async () => {
      for (const segment of UNDECODABLE_SEGMENTS) {
        await expectError(
          await send(endpoint.method, pathOf(endpoint, segment)),
          400,
          "invalid_path",
          "$.path",
          "invalid_percent_encoding",
        );
      }
      await expectError(
        await send(endpoint.method, pathOf(endpoint, "chain%00x")),
        400,
        "invalid_path",
        `$.path.${endpoint.param}`,
        "unstorable_string",
      );
      await expectError(
        await send(endpoint.method, pathOf(endpoint, "a".repeat(300))),
        400,
        "invalid_path",
        `$.path.${endpoint.param}`,
        "too_big",
      );
    });
  }

  it("are refused before authentication", async () => {
    await expectError(await send("GET", "/api/v1/chains/%ZZ", false), 400, "invalid_path", "$.path");
    await expectError(
      await send("GET", "/api/v1/sessions/x%00", false),
      400,
      "invalid_path",
      "$.path.sessionId",
    );
  });

  it("a valid percent-encoded id still opens its chain", async () => {
    const record = build((r) => {
      r.recordId = "rec:encoded";
      r.chainId = "chain:encoded.1";
    });
    expect((await api().post([record])).status).toBe(200);
    const response = await api().get("/api/v1/chains/chain%3Aencoded.1");
    expect(response.status).toBe(200);
    expect(((await response.json()) as { chain: { chainId: string } }).chain.chainId).toBe("chain:encoded.1");
  });

  it.each(["/chains/%ZZ", "/sessions/%E0%A4%A", "/chains/a%00b"])(
    "the page %s → 400, not 500",
    async (path) => {
      const response = await fetch(`${app.baseUrl}${path}`, { headers: { cookie } });
      expect(response.status).toBe(400);
      expect(await response.text()).toMatch(/^400 Bad Request/);
    },
  );
});

describe("cursors (400 invalid_query at $.query.cursor)", () => {
  it.each(CRAFTED_CURSORS)("%s", async (_, cursor) => {
    for (const path of ["/api/v1/chains", "/api/v1/queues/false-success", "/api/v1/queues/effect-unknown"]) {
      const response = await api().get(`${path}?cursor=${encodeURIComponent(cursor)}`);
      await expectError(response, 400, "invalid_query", "$.query.cursor");
    }
  });

  it("a cursor the API returned still pages", async () => {
    const records = [1, 2, 3].map((i) =>
      build((r) => {
        r.recordId = `rec:page-${i}`;
        r.chainId = `chain:page-${i}`;
      }),
    );
    expect((await api().post(records)).status).toBe(200);
    const first = (await (await api().get("/api/v1/chains?limit=1")).json()) as { nextCursor: string };
    expect(first.nextCursor).toEqual(expect.any(String));
    expect((await api().get(`/api/v1/chains?limit=1&cursor=${first.nextCursor}`)).status).toBe(200);
    const own = cursorOf(["2026-11-30T10:01:00.000Z", "chain:page-2"]);
    expect((await api().get(`/api/v1/chains?cursor=${own}`)).status).toBe(200);
  });
});

describe("query parameters (400 invalid_query at $.query.<name>)", () => {
  it.each([
    ["/api/v1/chains?since=0000-01-01T00:00:00Z", "$.query.since", "custom"],
    ["/api/v1/chains?until=0001-01-01T00:00:00%2B01:00", "$.query.until", "custom"],
    ["/api/v1/chains?since=2026-11-30T10:00:00Z%00", "$.query.since", "unstorable_string"],
    ["/api/v1/chains?server=a%00b", "$.query.server", "unstorable_string"],
    ["/api/v1/chains?client=%00", "$.query.client", "unstorable_string"],
    ["/api/v1/chains?tool=x%00", "$.query.tool", "unstorable_string"],
    ["/api/v1/chains?session=%00", "$.query.session", "unstorable_string"],
    ["/api/v1/chains?label=team:a%00", "$.query.label", "unstorable_string"],
    ["/api/v1/chains?label=te%00am:a", "$.query.label", "unstorable_string"],
    ["/api/v1/chains?limit=1e400", "$.query.limit", "invalid_type"],
    ["/api/v1/chains?limit=99999999999999999999", "$.query.limit", "too_big"],
    ["/api/v1/chains?state=unknown", "$.query.state", "invalid_value"],
    ["/api/v1/stats?since=0000-06-01T00:00:00Z", "$.query.since", "custom"],
    ["/api/v1/coverage?since=0000-06-01T00:00:00Z", "$.query.since", "custom"],
    ["/api/v1/attention?since=0000-06-01T00:00:00Z", "$.query.since", "custom"],
    ["/api/v1/attention?limit=1e309", "$.query.limit", "invalid_type"],
    ["/api/v1/queues/false-success?status=%00", "$.query.status", "unstorable_string"],
    ["/api/v1/routing/deliveries?channel=a%00", "$.query.channel", "unstorable_string"],
    ["/api/v1/routing/deliveries?before=99999999999999999999", "$.query.before", "invalid_format"],
    ["/api/v1/routing/alerts?limit=1e400", "$.query.limit", "invalid_type"],
    ["/api/v1/stats/trend?window=%00", "$.query.window", "unstorable_string"],
  ])("%s", async (path, issuePath, issueCode) => {
    await expectError(await dashboard().get(path), 400, "invalid_query", issuePath, issueCode);
  });

  it("PUT routing config with NUL in ?comment= → 400 at $.query.comment; nothing saved", async () => {
    const response = await fetch(`${app.baseUrl}/api/v1/routing/config?comment=a%00`, {
      method: "PUT",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify(DEFAULT_ROUTING_CONFIG),
    });
    await expectError(response, 400, "invalid_query", "$.query.comment", "unstorable_string");
    const versions = (await dashboard().json<{ versions: unknown[] }>("/api/v1/routing/config/versions"))
      .versions;
    expect(versions).toEqual([]);
  });
});

describe("dashboard bodies", () => {
  it.each<[string, string, string, unknown, number, string, string, string]>([
    [
      "triage note with NUL",
      "POST",
      "/api/v1/chains/chain:x/triage",
      { action: "note", queue: "false_success", note: NUL },
      422,
      "invalid_body",
      "$.note",
      "unstorable_string",
    ],
    [
      "reconcile receipt with a lone surrogate",
      "POST",
      "/api/v1/chains/chain:x/reconcile",
      { status: "committed", receipt: LONE },
      422,
      "invalid_body",
      "$.receipt",
      "unstorable_string",
    ],
    [
      "key name with NUL",
      "POST",
      "/api/v1/keys",
      { name: NUL },
      422,
      "invalid_body",
      "$.name",
      "unstorable_string",
    ],
    [
      "an unknown key holding NUL",
      "POST",
      "/api/v1/keys",
      { name: "ok", [NUL]: 1 },
      422,
      "invalid_body",
      '$["a\\u0000b"]',
      "unstorable_string",
    ],
    [
      "silence comment with NUL",
      "POST",
      "/api/v1/routing/silences",
      { matchers: ['state="tool_failed"'], duration: "1h", comment: NUL },
      422,
      "invalid_body",
      "$.comment",
      "unstorable_string",
    ],
    [
      "silence starting in year 0000",
      "POST",
      "/api/v1/routing/silences",
      { matchers: ['state="tool_failed"'], startsAt: "0000-01-01T00:00:00Z", duration: "1h", comment: "x" },
      422,
      "invalid_body",
      "$.startsAt",
      "custom",
    ],
    [
      "silence ending after 9999",
      "POST",
      "/api/v1/routing/silences",
      { matchers: ['state="tool_failed"'], duration: "1000000w", comment: "x" },
      422,
      "invalid_silence",
      "$.duration",
      "too_big",
    ],
    [
      "route test with a NUL in the record",
      "POST",
      "/api/v1/routing/route-test",
      { record: build((r) => (r.session.client.name = NUL)) },
      422,
      "invalid_body",
      "$.record.session.client.name",
      "unstorable_string",
    ],
  ])("%s → %i %s", async (_, method, path, body, status, code, issuePath, issueCode) => {
    const response = await fetch(`${app.baseUrl}${path}`, {
      method,
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    await expectError(response, status, code, issuePath, issueCode);
  });

  it("routing durations past a year → 422 invalid_routing_config at their path", async () => {
    const config = structuredClone(DEFAULT_ROUTING_CONFIG) as unknown as { route: Record<string, unknown> };
    config.route.repeatInterval = "100000w";
    const response = await fetch(`${app.baseUrl}/api/v1/routing/config`, {
      method: "PUT",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify(config),
    });
    await expectError(response, 422, "invalid_routing_config", "$.route.repeatInterval", "duration_too_long");
  });

  it("nothing was stored by any refused request", async () => {
    const silences = await dashboard().json<{ silences: unknown[] }>("/api/v1/routing/silences");
    expect(silences.silences).toEqual([]);
    expect(app.output()).not.toMatch(/receipt: .* failed/);
  });

  it("the good record used above is valid on its own (the refusals were the bad record's)", async () => {
    expect((await api().post([legacyRecord()])).status).toBe(200);
  });
});
