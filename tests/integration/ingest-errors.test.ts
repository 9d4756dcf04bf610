import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, createTestKey, type RunningApp, runKeysCli, startApp } from "@/tests/support/app-server";
import { seedCases } from "@/tests/support/seed-cases";
import { createTestDatabase } from "@/tests/support/test-database";
import { build, legacyRecord } from "@/tests/support/record-builders";

// Every bad request gets a status, a machine-readable code and the JSON path of the problem — and stores nothing.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let ingestKey: string;
let readKey: string;

beforeAll(async () => {
  db = await createTestDatabase();
  ingestKey = await createTestKey(db.url, "agent-a");
  readKey = await createTestKey(db.url, "reader", ["ingest", "read"]);
  app = await startApp(db.url);
});
afterAll(async () => {
  await app?.stop();
  await db?.drop();
});

async function storedChainCount(): Promise<number> {
  const response = await apiClient(app.baseUrl, readKey).get("/api/v1/stats");
  return ((await response.json()) as { total: number }).total;
}

describe("authentication", () => {
  it.each([
    ["no Authorization header", undefined],
    ["an unknown key", "rcpt_not-a-real-key-000000000000000000"],
  ])("%s → 401 unauthorized", async (_, key) => {
    const response = await apiClient(app.baseUrl, key).post([legacyRecord()]);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: { code: "unauthorized" } });
  });

  it("a revoked key → 401, and the CLI lists it as revoked", async () => {
    const key = await createTestKey(db.url, "to-revoke");
    expect((await apiClient(app.baseUrl, key).post([legacyRecord()])).status).toBe(200);
    expect(runKeysCli(db.url, ["revoke", "to-revoke"]).status).toBe(0);
    const response = await apiClient(app.baseUrl, key).post([legacyRecord()]);
    expect(response.status).toBe(401);
    const list = runKeysCli(db.url, ["list"]).stdout;
    expect(list).toMatch(/to-revoke\t\S+\tingest\trevoked /);
    expect(list).not.toContain(key);
  });

  it("an ingest-only key cannot read (403 forbidden); a read key can", async () => {
    expect((await apiClient(app.baseUrl, ingestKey).get("/api/v1/chains")).status).toBe(403);
    expect((await apiClient(app.baseUrl, readKey).get("/api/v1/chains")).status).toBe(200);
  });

  it("a read-only key cannot ingest", async () => {
    const key = await createTestKey(db.url, "read-only", ["read"]);
    expect((await apiClient(app.baseUrl, key).post([legacyRecord()])).status).toBe(403);
  });
});

describe("malformed batches", () => {
  it("wrong Content-Type → 415 unsupported_media_type", async () => {
    const response = await apiClient(app.baseUrl, ingestKey).postRaw("records=1", "text/plain");
    expect(response.status).toBe(415);
    expect(await response.json()).toMatchObject({ error: { code: "unsupported_media_type" } });
  });

  it("broken JSON → 400 invalid_json", async () => {
    const response = await apiClient(app.baseUrl, ingestKey).postRaw('{"records": [', "application/json");
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: "invalid_json", issues: [{ path: "$" }] } });
  });

  it("a broken NDJSON line → 400 invalid_json naming the line", async () => {
    const body = `${JSON.stringify(legacyRecord())}\n{oops\n`;
    const response = await apiClient(app.baseUrl, ingestKey).postRaw(body, "application/x-ndjson");
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: "invalid_json", issues: [{ path: "$[line 2]" }] },
    });
  });

  it("over 5 MiB → 413 payload_too_large", async () => {
    const body = Buffer.alloc(5 * 1024 * 1024 + 10, 0x20);
    const response = await apiClient(app.baseUrl, ingestKey).postRaw(body, "application/json");
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: "payload_too_large" } });
  });

  it.each([
    ["no records", { records: [] }, "$.records"],
    ["records not an array", { records: {} }, "$.records"],
    ["a top-level array", [], "$"],
  ])("%s → 422 invalid_batch at %s", async (_, body, path) => {
    const response = await apiClient(app.baseUrl, ingestKey).postRaw(
      JSON.stringify(body),
      "application/json",
    );
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ error: { code: "invalid_batch", issues: [{ path }] } });
  });

  it("1001 records → 422 invalid_batch (at most 1000)", async () => {
    const records = Array.from({ length: 1001 }, (_, i) => build((r) => (r.recordId = `rec:many-${i}`)));
    const response = await apiClient(app.baseUrl, ingestKey).post(records);
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({
      error: { code: "invalid_batch", issues: [{ code: "too_big" }] },
    });
  });
});

describe("atomic rejection", () => {
  it("one invalid record among valid ones → 422 invalid_records listing every problem; nothing stored", async () => {
    const before = await storedChainCount();
    const good = seedCases().map((c) => c.record);
    const unknownField = { ...legacyRecord(), recordId: "rec:bad-1", prompt: "summarise the quarter" };
    const badTime = build((r) => {
      r.recordId = "rec:bad-2";
      r.observedAt = "2026-11-30 10:00:00";
    });
    const response = await apiClient(app.baseUrl, ingestKey).post([...good, unknownField, badTime]);
    expect(response.status).toBe(422);
    const { error } = (await response.json()) as {
      error: { code: string; issues: { index: number; path: string }[] };
    };
    expect(error.code).toBe("invalid_records");
    expect(error.issues).toContainEqual(expect.objectContaining({ index: 9, path: "$.prompt" }));
    expect(error.issues).toContainEqual(expect.objectContaining({ index: 10, path: "$.observedAt" }));
    expect(await storedChainCount()).toBe(before);
  });

  it.each([
    [
      "a bearer token in a label",
      (r: ReturnType<typeof legacyRecord>) =>
        (r.labels = { note: "Bearer abcdefghijklmnopqrstuvwxyz123456" }),
      "$.labels.note",
    ],
    [
      "a GitHub token as the client name",
      (r: ReturnType<typeof legacyRecord>) =>
        (r.session.client.name = "ghp_0123456789abcdefghijklmnopqrstuvwxyz"),
      "$.session.client.name",
    ],
    [
      "an AWS key id in the outcome receipt",
      (r: ReturnType<typeof legacyRecord>) => {
        if (r.call?.outcome) r.call.outcome.receipt = "AKIAIOSFODNN7EXAMPLE";
      },
      "$.call.outcome.receipt",
    ],
  ])(
    "%s → 422 secret_detected at its path, never echoed or logged, nothing stored",
    async (_, plant, path) => {
      const before = await storedChainCount();
      const record = build((r) => {
        r.recordId = "rec:secret";
        plant(r);
      });
      const secret =
        JSON.stringify(record).match(/(Bearer [a-z0-9]+|ghp_[a-z0-9]+|AKIA[A-Z0-9]+)/)?.[0] ?? "";
      expect(secret.length).toBeGreaterThan(10);
      const response = await apiClient(app.baseUrl, ingestKey).post([legacyRecord(), record]);
      const text = await response.text();
      expect(response.status).toBe(422);
      expect(JSON.parse(text)).toMatchObject({
        error: { code: "secret_detected", issues: [{ index: 1, path }] },
      });
      expect(text).not.toContain(secret);
      expect(app.output()).not.toContain(secret);
      expect(await storedChainCount()).toBe(before);
    },
  );
});

describe("conflicts", () => {
  it("the same recordId with other content → 409 record_conflict for the whole batch", async () => {
    const original = build((r) => (r.recordId = "rec:conflict"));
    expect((await apiClient(app.baseUrl, ingestKey).post([original])).status).toBe(200);
    const before = await storedChainCount();
    const changed = build((r) => {
      r.recordId = "rec:conflict";
      r.labels = { env: "other" };
    });
    const fresh = build((r) => {
      r.recordId = "rec:fresh-in-conflicting-batch";
      r.chainId = "chain:fresh-in-conflicting-batch";
    });
    const response = await apiClient(app.baseUrl, ingestKey).post([fresh, changed]);
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({
      error: { code: "record_conflict", issues: [{ index: 1 }] },
    });
    expect(await storedChainCount()).toBe(before);
    const missing = await apiClient(app.baseUrl, readKey).get(
      "/api/v1/chains/chain:fresh-in-conflicting-batch",
    );
    expect(missing.status).toBe(404);
  });
});

describe("read API query errors", () => {
  it.each([
    ["limit=500", "$.query.limit"],
    ["state=green", "$.query.state"],
    ["since=yesterday", "$.query.since"],
    ["colour=red", "$.query"],
    ["cursor=nonsense", "$.query.cursor"],
  ])("?%s → 400 invalid_query at %s", async (query, path) => {
    const response = await apiClient(app.baseUrl, readKey).get(`/api/v1/chains?${query}`);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: "invalid_query", issues: [{ path }] } });
  });

  it("an unknown chain or session → 404 not_found", async () => {
    // Bodies read to the end: a response left unread keeps its connection busy, and the app's graceful stop then
    // waits for it until the harness's 10 s bound (tests/support/app-server.ts).
    for (const path of ["/api/v1/chains/nope", "/api/v1/sessions/nope"]) {
      const response = await apiClient(app.baseUrl, readKey).get(path);
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("not_found");
    }
  });
});
