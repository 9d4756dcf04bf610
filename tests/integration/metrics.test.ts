import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { seedRecord } from "@/tests/support/routing-helpers";
import { adminCookie } from "@/tests/support/dashboard-session";
import { createTestDatabase } from "@/tests/support/test-database";
import { startWebhookReceiver, type WebhookReceiver } from "@/tests/support/webhook-receiver";

// GET /metrics against the production build: Prometheus text behind the read scope, with numbers that move as
// records are ingested, chains classified, deliveries sent, and bad rows set aside.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let receiver: WebhookReceiver;
let sql: pg.Client;
let readKey: string;
let ingestKey: string;

const HOUR = 3_600_000;

beforeAll(async () => {
  db = await createTestDatabase();
  readKey = await createTestKey(db.url, "scraper", ["read"]);
  ingestKey = await createTestKey(db.url, "agent", ["ingest"]);
  receiver = await startWebhookReceiver();
  // The deadline and routing jobs wait an hour between runs and are never woken, so their backlog stays put while it
  // is scraped; the delivery job runs often.
  app = await startApp(db.url, {
    RECEIPT_DEADLINE_TICK_MS: String(HOUR),
    RECEIPT_ALERT_TICK_MS: String(HOUR),
    RECEIPT_DELIVERY_TICK_MS: "100",
    RECEIPT_WAKE_UPS: "0",
  });
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
});
afterAll(async () => {
  await sql?.end();
  await app?.stop();
  await receiver?.stop();
  await db?.drop();
});

type Sample = { name: string; labels: Record<string, string>; value: number };

/** Prometheus text format: `name{label="value",...} number` lines (comments skipped). */
function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries(
      [...(match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [
        m[1],
        m[2],
      ]),
    );
    samples.push({ name: match[1] ?? "", labels, value: Number(match[3]) });
  }
  return samples;
}

async function scrape(): Promise<(name: string, labels?: Record<string, string>) => number> {
  const response = await apiClient(app.baseUrl, readKey).get("/metrics");
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  const samples = parseSamples(await response.text());
  return (name, labels = {}) =>
    samples
      .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
      .reduce((sum, s) => sum + s.value, 0);
}

async function eventually(check: () => Promise<void>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

describe("GET /metrics", () => {
  it("answers 401 without a key, 403 to an ingest-only key, and 200 to a read key or a dashboard session", async () => {
    const anonymous = await apiClient(app.baseUrl).get("/metrics");
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
    const ingestOnly = await apiClient(app.baseUrl, ingestKey).get("/metrics");
    expect(ingestOnly.status).toBe(403);
    expect(((await ingestOnly.json()) as { error: { code: string } }).error.code).toBe("forbidden");
    const signedIn = await fetch(`${app.baseUrl}/metrics`, {
      headers: { cookie: await adminCookie(app.baseUrl) },
    });
    expect(signedIn.status).toBe(200);
    expect(await signedIn.text()).toContain("# TYPE receipt_records_ingested_total counter");
  });

  it("counts records by outcome, chains by state and batches by outcome, with the request duration", async () => {
    const earlier = await scrape();
    const client = apiClient(app.baseUrl, ingestKey);
    const healthy = seedRecord("healthy", "m-healthy");
    const failed = seedRecord("tool_failed", "m-failed");
    expect((await client.post([healthy, failed])).status).toBe(200);
    expect((await client.post([healthy])).status).toBe(200);
    const refused = await client.post([healthy, { ...failed, recordId: 42 }]);
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("invalid_records");

    const later = await scrape();
    const moved = (name: string, labels?: Record<string, string>) =>
      later(name, labels) - earlier(name, labels);
    expect(moved("receipt_records_ingested_total", { outcome: "stored" })).toBe(2);
    expect(moved("receipt_records_ingested_total", { outcome: "duplicate" })).toBe(1);
    expect(moved("receipt_records_ingested_total", { outcome: "rejected" })).toBe(2);
    expect(moved("receipt_chains_classified_total", { state: "healthy", cause: "record" })).toBe(1);
    expect(moved("receipt_chains_classified_total", { state: "tool_failed", cause: "record" })).toBe(1);
    expect(moved("receipt_ingest_batches_total", { outcome: "accepted" })).toBe(2);
    expect(moved("receipt_ingest_batches_total", { outcome: "invalid_records" })).toBe(1);
    expect(moved("receipt_ingest_request_duration_seconds_count", { outcome: "accepted" })).toBe(2);
    expect(moved("receipt_ingest_request_duration_seconds_count", { outcome: "refused" })).toBe(1);
    expect(moved("receipt_ingest_request_duration_seconds_sum", { outcome: "accepted" })).toBeGreaterThan(0);
    // The routing job has not run since: the tool_failed alert's event waits in the outbox.
    expect(later("receipt_alert_outbox_backlog")).toBeGreaterThanOrEqual(1);
    expect(later("receipt_worker_lag_seconds", { job: "alert-routing" })).toBeGreaterThan(0);
  });

  it("reports the oldest due item's wait per job", async () => {
    // A working chain whose deadline passed an hour ago, which the (hourly) deadline job has not seen yet.
    const overdue = seedRecord("working", "m-overdue", (record) => {
      const shift = (iso: string) => new Date(Date.parse(iso) - 5 * HOUR).toISOString();
      record.observedAt = shift(record.observedAt);
      if (record.call) record.call.startedAt = shift(record.call.startedAt);
      if (record.catalog) record.catalog.refreshedAt = shift(record.catalog.refreshedAt);
      if (record.session.protocol.initializedAt)
        record.session.protocol.initializedAt = shift(record.session.protocol.initializedAt);
    });
    const response = await apiClient(app.baseUrl, ingestKey).post([overdue]);
    const [result] = ((await response.json()) as { results: { state: string; nextCheckAt: string }[] })
      .results;
    expect(result?.state).toBe("working");
    const overdueSeconds = (Date.now() - Date.parse(result?.nextCheckAt ?? "")) / 1000;
    expect(overdueSeconds).toBeGreaterThan(60);
    const metrics = await scrape();
    expect(metrics("receipt_worker_lag_seconds", { job: "deadline" })).toBeGreaterThanOrEqual(
      overdueSeconds - 5,
    );
    expect(metrics("receipt_worker_lag_seconds", { job: "delivery" })).toBe(0);
  });

  it("counts deliveries by outcome and receiver kind, job runs, and items set aside (from the database)", async () => {
    const earlier = await scrape();
    const insert = (groupKey: string, attempts: number) =>
      sql.query(
        `insert into deliveries (group_key, channel, target_index, target_type, url, body, headers, kind,
          alert_fingerprints, max_attempts, status, attempts, next_attempt_at)
        values ($1, 'ops', 0, 'webhook', $2, '{}', '{}', 'notification', '{}', 3, 'pending', $3, now())`,
        [groupKey, receiver.url(`/hook/${groupKey}`), attempts],
      );
    await insert("m-good", 0);
    // A row whose claim overflows its attempt counter: set aside by the delivery job.
    await insert("m-poisoned", 2147483647);
    await receiver.waitFor((all) => all.some((r) => r.path === "/hook/m-good"));
    await eventually(async () => {
      const later = await scrape();
      expect(later("receipt_set_aside_items", { job: "delivery" })).toBe(1);
      expect(
        later("receipt_deliveries_total", { outcome: "delivered", receiver_kind: "webhook" }) -
          earlier("receipt_deliveries_total", { outcome: "delivered", receiver_kind: "webhook" }),
      ).toBe(1);
      expect(
        later("receipt_job_items_set_aside_total", { job: "delivery" }) -
          earlier("receipt_job_items_set_aside_total", { job: "delivery" }),
      ).toBe(1);
      expect(later("receipt_job_runs_total", { job: "delivery" })).toBeGreaterThan(
        earlier("receipt_job_runs_total", { job: "delivery" }),
      );
      expect(later("receipt_job_failures_total", { job: "delivery" })).toBe(0);
    });
    // An operator's retry (a fresh set of attempts): the set-aside row goes, and the gauge read from the database follows.
    const retried = await fetch(`${app.baseUrl}/api/v1/routing/deliveries`, {
      headers: { cookie: await adminCookie(app.baseUrl) },
    });
    const { deliveries } = (await retried.json()) as { deliveries: { id: string; groupKey: string }[] };
    const poisoned = deliveries.find((d) => d.groupKey === "m-poisoned");
    const retry = await fetch(`${app.baseUrl}/api/v1/routing/deliveries/${poisoned?.id}/retry`, {
      method: "POST",
      headers: { cookie: await adminCookie(app.baseUrl), origin: app.baseUrl },
    });
    expect(retry.status).toBe(202);
    await receiver.waitFor((all) => all.some((r) => r.path === "/hook/m-poisoned"));
    expect((await scrape())("receipt_set_aside_items", { job: "delivery" })).toBe(0);
  });
});
