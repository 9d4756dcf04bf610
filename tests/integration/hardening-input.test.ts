// Issue 17 items 1 and 2: bad input of every class is a 4xx with a code and a JSON path — never a 500, never stored,
// never a stalled deadline worker. Each table row asserts exactly what the real app answers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ROUTING_CONFIG } from "@/lib/routing/defaults";
import { apiClient, createKeyWithCli, type RunningApp, startApp } from "@/tests/support/app-server";
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
import { build, buildCall, inFlightWrite, legacyRecord } from "@/tests/unit/classifier-records";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let key: string;
let cookie: string;

beforeAll(async () => {
  db = await createTestDatabase();
  key = createKeyWithCli(db.url, "hardening", ["ingest", "read"]);
  app = await startApp(db.url, { RECEIPT_DEADLINE_TICK_MS: "100" });
  cookie = await adminCookie(app.baseUrl);
});
afterAll(async () => {
  await app?.stop();
  await db?.drop();
});

const api = () => apiClient(app.baseUrl, key);
const dashboard = () => dashboardClient(app.baseUrl, cookie);

async function storedChainCount(): Promise<number> {
  return ((await (await api().get("/api/v1/stats")).json()) as { total: number }).total;
}

// biome-ignore lint/suspicious/noExplicitAny: the rows reach into any field of a record, valid or not.
type Mutable = Record<string, any>;
const NUL = "a\u0000b";
const LONE = "a\uDC00b";

const RECORD_CASES: [string, (r: Mutable) => void, string, string][] = [
  [
    "NUL in session.capabilities",
    (r) => r.session.capabilities.server.push(NUL),
    "$.session.capabilities.server[2]",
    "unstorable_string",
  ],
  [
    "a lone surrogate in the client name",
    (r) => (r.session.client.name = LONE),
    "$.session.client.name",
    "unstorable_string",
  ],
  [
    "NUL in a label key",
    (r) => (r.labels = { "te\u0000am": "x" }),
    '$.labels["te\\u0000am"]',
    "unstorable_string",
  ],
  [
    "a lone surrogate in a label value",
    (r) => (r.labels = { team: LONE }),
    "$.labels.team",
    "unstorable_string",
  ],
  ["NUL in an unknown key", (r) => (r.call[NUL] = 1), '$.call["a\\u0000b"]', "unstorable_string"],
  ["NUL in the tool name", (r) => (r.call.tool = NUL), "$.call.tool", "unstorable_string"],
  ["NUL in the recordId", (r) => (r.recordId = NUL), "$.recordId", "unstorable_string"],
  ["NUL in the chainId", (r) => (r.chainId = NUL), "$.chainId", "unstorable_string"],
  [
    "NUL in the outcome receipt",
    (r) => (r.call.outcome.receipt = NUL),
    "$.call.outcome.receipt",
    "unstorable_string",
  ],
  [
    "observedAt in year 0000",
    (r) => (r.observedAt = "0000-01-01T00:00:00Z"),
    "$.observedAt",
    "timestamp_out_of_range",
  ],
  [
    "startedAt before year 0001 once its offset applies",
    (r) => (r.call.startedAt = "0001-01-01T00:00:00+01:00"),
    "$.call.startedAt",
    "timestamp_out_of_range",
  ],
  [
    "checkedAt after 9999 once its offset applies",
    (r) => (r.call.effect.checkedAt = "9999-12-31T23:00:00-02:00"),
    "$.call.effect.checkedAt",
    "timestamp_out_of_range",
  ],
  [
    "a five-digit year",
    (r) => (r.catalog.refreshedAt = "+10000-01-01T00:00:00Z"),
    "$.catalog.refreshedAt",
    "invalid_timestamp",
  ],
  ["deadlineMs 1e15", (r) => (r.call.deadlineMs = 1e15), "$.call.deadlineMs", "too_big"],
  [
    "inactivityMs past a year",
    (r) => {
      r.call.deadlineMs = 1e15;
      r.call.inactivityMs = 1e15;
    },
    "$.call.inactivityMs",
    "too_big",
  ],
  ["deadlineMs negative", (r) => (r.call.deadlineMs = -5), "$.call.deadlineMs", "too_small"],
  ["deadlineMs fractional", (r) => (r.call.deadlineMs = 2.5), "$.call.deadlineMs", "invalid_type"],
  [
    "a deadline after 9999-12-31",
    (r) => {
      r.call.startedAt = "9999-12-31T12:00:00Z";
      r.call.deadlineMs = 86_400_000;
    },
    "$.call.deadlineMs",
    "deadline_out_of_range",
  ],
  ['chainId ".."', (r) => (r.chainId = ".."), "$.chainId", "unaddressable_id"],
  ['chainId "."', (r) => (r.chainId = "."), "$.chainId", "unaddressable_id"],
  ['session id ".."', (r) => (r.session.id = ".."), "$.session.id", "unaddressable_id"],
];

describe("records PostgreSQL or a URL cannot hold are refused whole (422 invalid_records)", () => {
  it.each(RECORD_CASES)("%s (JSON and NDJSON)", async (name, change, path, code) => {
    const before = await storedChainCount();
    const good = build((r) => {
      r.recordId = "rec:hardening-good";
      r.chainId = "chain:hardening-good";
    });
    const bad = build((r) => {
      r.recordId = `rec:hardening-${name.replace(/[^a-z0-9]+/gi, "-")}`;
      change(r as unknown as Mutable);
    });
    const asJson = await api().post([good, bad]);
    await expectError(asJson, 422, "invalid_records", path, code);
    const ndjson = `${JSON.stringify(good)}\n${JSON.stringify(bad)}\n`;
    const asNdjson = await api().postRaw(ndjson, "application/x-ndjson");
    const body = (await asNdjson.clone().json()) as { error: { issues: { index: number }[] } };
    await expectError(asNdjson, 422, "invalid_records", path, code);
    expect(body.error.issues.every((issue) => issue.index === 1)).toBe(true);
    expect(await storedChainCount()).toBe(before);
  });

  it("a refused record leaves the deadline worker running: a working chain still leaves working", async () => {
    const now = Date.now();
    const working = (id: string, change?: (r: Mutable) => void) =>
      buildCall((call, r) => {
        inFlightWrite(call);
        r.recordId = `rec:${id}`;
        r.chainId = `chain:${id}`;
        r.observedAt = new Date(now).toISOString();
        if (r.catalog) r.catalog.refreshedAt = new Date(now - 1000).toISOString();
        r.session.protocol.initializedAt = new Date(now - 2000).toISOString();
        call.startedAt = new Date(now - 100).toISOString();
        call.deadlineMs = 800;
        call.inactivityMs = 800;
        change?.(r as unknown as Mutable);
      });
    const poisoned = await api().post([working("poisoned", (r) => r.session.capabilities.server.push(NUL))]);
    await expectError(
      poisoned,
      422,
      "invalid_records",
      "$.session.capabilities.server[2]",
      "unstorable_string",
    );
    expect((await api().post([working("after-poison")])).status).toBe(200);
    const deadline = Date.now() + 15_000;
    let state = "working";
    while (state === "working" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const detail = (await (await api().get("/api/v1/chains/chain:after-poison")).json()) as {
        chain: { state: string };
      };
      state = detail.chain.state;
    }
    expect(state).toBe("effect_unknown");
  });
});

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
