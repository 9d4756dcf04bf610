import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

// Receipt's Prometheus metrics, served at GET /metrics (lib/server/metrics/scrape.ts). Counters live in this process
// (they restart at zero, as Prometheus expects of counters); gauges that describe the database are read at scrape
// time, so every instance reports the same, right numbers across restarts.

function createMetrics() {
  const registry = new Registry();
  const registers = [registry];
  // The process's own: CPU, memory, GC pauses and the event loop's delay (`nodejs_eventloop_lag_max_seconds`, the
  // longest since the last scrape, sampled every 10 ms): a request that holds the loop shows there.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 10 });
  return {
    registry,
    recordsIngested: new Counter({
      name: "receipt_records_ingested_total",
      help: "Records answered by POST /api/v1/records: stored, duplicate (already stored, not stored again), or rejected (in a refused batch)",
      labelNames: ["outcome"] as const,
      registers,
    }),
    ingestBatches: new Counter({
      name: "receipt_ingest_batches_total",
      help: "Batches POSTed to /api/v1/records: accepted, or the error.code they were refused with",
      labelNames: ["outcome"] as const,
      registers,
    }),
    ingestDuration: new Histogram({
      name: "receipt_ingest_request_duration_seconds",
      help: "Time to read, validate, classify and store one batch (accepted or refused)",
      labelNames: ["outcome"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    otlpExports: new Counter({
      name: "receipt_otlp_exports_total",
      help: "Exports POSTed to /v1/traces: accepted (every span), partial (some spans rejected), or the error.code the whole export was refused with",
      labelNames: ["outcome"] as const,
      registers,
    }),
    otlpSpans: new Counter({
      name: "receipt_otlp_spans_total",
      help: "Spans received at /v1/traces: stored, duplicate (stored already), or rejected with its code (code is empty otherwise); warning: a stored span used without one value, with its code",
      labelNames: ["outcome", "code"] as const,
      registers,
    }),
    otlpSessionSpansRead: new Counter({
      name: "receipt_otlp_session_spans_read_total",
      help: "Stored spans read back to re-assemble the sessions exports add to: the session-wide spans and the traces an export adds to, or a whole session when the export brings a handshake, catalog or auth challenge span",
      registers,
    }),
    guardDecisions: new Counter({
      name: "receipt_guard_decisions_total",
      help: "Answers of the retry guard (POST /api/v1/operations/{key}/attempts): proceed, wait, reconcile_first or already_committed",
      labelNames: ["decision"] as const,
      registers,
    }),
    checkRuns: new Counter({
      name: "receipt_check_runs_total",
      help: "Destination check runs by trigger (effect_unknown: the background job; on_demand) and what they found (committed, absent, unknown), and whether the run reconciled its chain",
      labelNames: ["trigger", "effect", "reconciled"] as const,
      registers,
    }),
    chainsClassified: new Counter({
      name: "receipt_chains_classified_total",
      help: "Classifications written to a chain's current state, by state and cause (record: ingestion; deadline: the deadline job)",
      labelNames: ["state", "cause"] as const,
      registers,
    }),
    jobRuns: new Counter({
      name: "receipt_job_runs_total",
      help: "Runs of each background job",
      labelNames: ["job"] as const,
      registers,
    }),
    jobFailures: new Counter({
      name: "receipt_job_failures_total",
      help: "Runs of each background job that failed as a whole (a database outage, not one bad item)",
      labelNames: ["job"] as const,
      registers,
    }),
    itemsSetAside: new Counter({
      name: "receipt_job_items_set_aside_total",
      help: "Items a background job could not process and set aside, by job",
      labelNames: ["job"] as const,
      registers,
    }),
    deliveries: new Counter({
      name: "receipt_deliveries_total",
      help: "Delivery attempts by outcome (delivered, failed: retried later, dead: dead-lettered) and receiver kind",
      labelNames: ["outcome", "receiver_kind"] as const,
      registers,
    }),
    setAsideItems: new Gauge({
      name: "receipt_set_aside_items",
      help: "Items set aside now, by job (read from the database at scrape time)",
      labelNames: ["job"] as const,
      registers,
    }),
    workerLag: new Gauge({
      name: "receipt_worker_lag_seconds",
      help: "How long the oldest item due for each background job has been waiting (0: nothing due)",
      labelNames: ["job"] as const,
      registers,
    }),
    alertStages: new Histogram({
      name: "receipt_alert_stage_seconds",
      help: "Where an alert's way to its receiver spends time, by stage: commit_route (routing and flushing in the ingesting transaction), outbox_wait (the ingesting transaction's start to its event taken by routing), route (the routing transaction), flush (group flushes that made notifications), delivery_wait (a delivery written to claimed), claim, post (the receiver's answer), record (answer to attempt stored)",
      labelNames: ["stage"] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    }),
    outboxBacklog: new Gauge({
      name: "receipt_alert_outbox_backlog",
      help: "Alert events waiting in the outbox to be routed",
      registers,
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

// One set per process, on globalThis: the background jobs and the route handlers may be bundled as separate module
// instances, and they must count into the same registry.
const globalForMetrics = globalThis as unknown as { receiptMetrics?: Metrics };

export function metrics(): Metrics {
  globalForMetrics.receiptMetrics ??= createMetrics();
  return globalForMetrics.receiptMetrics;
}

/** Adds each key's count to a labelled counter: one increment per distinct label, not one per item. */
export function countBy<L extends string>(
  counter: Counter<L>,
  label: NoInfer<L>,
  values: Iterable<string>,
  extra: Partial<Record<NoInfer<L>, string>> = {},
): void {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  for (const [value, count] of counts) counter.inc({ ...extra, [label]: value } as Record<L, string>, count);
}
