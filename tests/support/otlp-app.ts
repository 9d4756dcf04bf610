import pg from "pg";
import { afterAll, beforeAll, expect } from "vitest";
import type { OtlpSpan } from "@/lib/otlp";
import { createTestKey, type RunningApp, startApp } from "./app-server";
import { otlpJson } from "./otlp-concurrent";
import { postTraces } from "./otlp-exports";
import { createTestDatabase } from "./test-database";

/**
 * One app (workers off), database, ingest and read keys per OTLP test file, started before its tests and stopped
 * after them; with the reads those files make: a POST /v1/traces, the chain of a call span, and /metrics.
 * `env` adds to the app's environment (a limit a file tests).
 */
export function otlpTestApp(env: Record<string, string> = {}) {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let app: RunningApp;
  let client: pg.Client;
  let key: string;
  let readKey: string;
  beforeAll(async () => {
    db = await createTestDatabase();
    key = await createTestKey(db.url, "otel-agent", ["ingest"]);
    readKey = await createTestKey(db.url, "scraper", ["read"]);
    app = await startApp(db.url, { RECEIPT_DISABLE_WORKERS: "1", ...env });
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await app?.stop();
    await db?.drop();
  });
  return {
    /** The app's base URL, its ingest key and its read key (set once the file's tests run). */
    get baseUrl() {
      return app.baseUrl;
    },
    get databaseUrl() {
      return db.url;
    },
    get key() {
      return key;
    },
    get readKey() {
      return readKey;
    },
    // biome-ignore lint/suspicious/noExplicitAny: rows are read as each test's SQL shapes them
    query: <R extends pg.QueryResultRow = any>(text: string, values?: unknown[]) =>
      client.query<R>(text, values),
    /** One count of a `select count(*)::int as n …` query. */
    async count(text: string, values?: unknown[]) {
      return Number((await client.query(text, values)).rows[0].n);
    },
    /** POST /v1/traces of a body as is, with the ingest key; answers the response, whatever its status. */
    post: (body: Buffer, headers?: Record<string, string>) => postTraces(app.baseUrl, key, body, headers),
    /** Posts OTLP/JSON (expecting 200); answers the partialSuccess, or `{}`. */
    async send(spans: readonly OtlpSpan[]) {
      const response = await postTraces(app.baseUrl, key, Buffer.from(otlpJson(spans)), {
        "content-type": "application/json",
      });
      expect(response.status).toBe(200);
      return (await response.json()) as {
        partialSuccess?: { rejectedSpans: string; errorMessage: string };
      };
    },
    /** The one stored chain of a call span. */
    async chainOf(call: Pick<OtlpSpan, "traceId" | "spanId">) {
      const { rows } = await client.query(
        "select state, server_name, server_version from chains where chain_id = $1",
        [`otlp:${call.traceId}:${call.spanId}`],
      );
      expect(rows).toHaveLength(1);
      return rows[0] as { state: string; server_name: string | null; server_version: string | null };
    },
    /** The app's /metrics text, read with the read key. */
    async metrics() {
      const response = await fetch(`${app.baseUrl}/metrics`, {
        headers: { authorization: `Bearer ${readKey}` },
      });
      expect(response.status).toBe(200);
      return response.text();
    },
  };
}
