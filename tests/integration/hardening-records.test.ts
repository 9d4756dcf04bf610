// Issue 17 item 1: a record whose strings, timestamps, durations or ids PostgreSQL or a URL cannot hold is refused whole
// (422 invalid_records with each problem's path and code), so no later job ever reads one. Each row asserts exactly
// what the real app answers, as JSON and as NDJSON.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { expectError } from "@/tests/support/bad-input";
import { createTestDatabase } from "@/tests/support/test-database";
import { build, buildCall, inFlightWrite } from "@/tests/support/record-builders";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let key: string;

beforeAll(async () => {
  db = await createTestDatabase();
  key = await createTestKey(db.url, "hardening", ["ingest", "read"]);
  app = await startApp(db.url, { RECEIPT_DEADLINE_TICK_MS: "100" });
});
afterAll(async () => {
  await app?.stop();
  await db?.drop();
});

const api = () => apiClient(app.baseUrl, key);

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
