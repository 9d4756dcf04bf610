/**
 * Record builders shared by the classifier and contract tests. Times are offsets from T0 so
 * a row reads as "started at 0 s, observed at 60 s" instead of as absolute timestamps.
 */
import type { Call, HealthRecord } from "@/lib/contract/record";

export const T0_MS = Date.parse("2026-11-30T10:00:00.000Z");

/** The timestamp `offsetMs` after T0, as ISO UTC with milliseconds. */
export function t(offsetMs: number): string {
  return new Date(T0_MS + offsetMs).toISOString();
}

export const SCHEMA_HASH = `sha256:${"ab".repeat(32)}`;

/** Legacy era (2025-11-25, initialize handshake): a verified write, so it classifies `healthy`. */
export function legacyRecord(): HealthRecord {
  return {
    schemaVersion: 1,
    recordId: "rec:legacy-1",
    chainId: "chain:legacy-1",
    observedAt: t(60_000),
    labels: { env: "test" },
    session: {
      id: "sess:legacy",
      client: { name: "receipt-test", version: "1.0.0" },
      server: { name: "reports-mcp", version: "2.3.1" },
      transport: "streamable-http",
      protocol: {
        era: "legacy",
        requestedVersion: "2025-11-25",
        acceptedVersion: "2025-11-25",
        clientSupportedVersions: ["2025-06-18", "2025-11-25"],
        initializedAt: t(-2_000),
      },
      capabilities: {
        server: ["tools", "tools.listChanged"],
        client: ["elicitation"],
        required: { server: ["tools"], client: [] },
      },
    },
    catalog: {
      pages: 1,
      complete: true,
      toolCount: 3,
      schemaHash: SCHEMA_HASH,
      refreshedAt: t(-1_000),
      listChangedAt: [],
    },
    call: {
      requestId: "req-1",
      tool: "create_report",
      inCatalog: true,
      sideEffect: "write",
      expectedVerifier: "db_row",
      startedAt: t(0),
      deadlineMs: 30_000,
      inactivityMs: 10_000,
      progressToken: "pt-1",
      progress: [],
      response: { at: t(1_000), kind: "result", isError: false, resultType: "complete" },
      effect: { checkedAt: t(20_000), status: "committed", receipt: "reports/42@v1" },
      outcome: { checkedAt: t(30_000), verifier: "db_row", verdict: "pass", receipt: "row 42 v1" },
    },
  };
}

/** Modern era (2026-07-28, stateless, tasks extension): a completed task, verified, `healthy`. */
export function modernRecord(): HealthRecord {
  const record = legacyRecord();
  record.recordId = "rec:modern-1";
  record.chainId = "chain:modern-1";
  record.session = {
    id: "sess:modern",
    client: { name: "receipt-test", version: "1.0.0" },
    server: { name: "warehouse-export", version: "1.0.0" },
    transport: "streamable-http",
    protocol: {
      era: "modern",
      requestedVersion: "2026-07-28",
      acceptedVersion: "2026-07-28",
      clientSupportedVersions: ["2026-07-28"],
      serverSupportedVersions: ["2026-07-28"],
    },
    capabilities: {
      server: ["tools", "extensions", "extensions.io.modelcontextprotocol/tasks", "tasks"],
      client: ["extensions", "extensions.io.modelcontextprotocol/tasks", "tasks"],
      required: { server: ["tools", "tasks"], client: ["tasks"] },
    },
  };
  const catalog = record.catalog;
  if (catalog !== undefined) catalog.ttlMs = 300_000;
  const call = requireCall(record);
  call.response = { at: t(200), kind: "result", resultType: "task" };
  call.task = { id: "task:1", status: "completed", updatedAt: t(15_000), result: { isError: false } };
  return record;
}

export function requireCall(record: HealthRecord): Call {
  if (record.call === undefined) throw new Error("test record has no call");
  return record.call;
}

/** A fresh copy of `base` changed by `change` (which may mutate freely). */
export function build(
  change: (record: HealthRecord) => void,
  base: () => HealthRecord = legacyRecord,
): HealthRecord {
  const record = base();
  change(record);
  return record;
}

/** Like `build`, for rows that only touch the call. */
export function buildCall(
  change: (call: Call, record: HealthRecord) => void,
  base: () => HealthRecord = legacyRecord,
): HealthRecord {
  return build((record) => change(requireCall(record), record), base);
}

/** A write still waiting for its response: no response, effect or outcome yet. */
export function inFlightWrite(call: Call): void {
  delete call.response;
  delete call.effect;
  delete call.outcome;
}

/**
 * An in-flight write observed now, its session and catalog a moment older, whose deadline (and inactivity limit)
 * is `deadlineMs` away: `working` until then, then the deadline job's. `change` sets ids and the rest.
 */
export function runningWriteRecord(
  deadlineMs: number,
  change: (call: Call, record: HealthRecord) => void,
): HealthRecord {
  const now = Date.now();
  return buildCall((call, r) => {
    inFlightWrite(call);
    r.observedAt = new Date(now).toISOString();
    r.catalog = {
      ...(r.catalog as NonNullable<HealthRecord["catalog"]>),
      refreshedAt: new Date(now - 1000).toISOString(),
    };
    if (r.session.protocol.initializedAt)
      r.session.protocol.initializedAt = new Date(now - 2000).toISOString();
    call.startedAt = new Date(now - 100).toISOString();
    call.deadlineMs = deadlineMs;
    call.inactivityMs = deadlineMs;
    call.progress = [];
    change(call, r);
  });
}

/** v1.2: the reporter did not see this session's handshake (a sampled trace without its initialize span). */
export function handshakeUnseen(record: HealthRecord): void {
  record.observed = { ...record.observed, handshake: false };
  delete record.session.protocol.initializedAt;
}

/** v1.2: the reporter did not see this session's tools/list (a collector attached after discovery). */
export function catalogUnseen(record: HealthRecord): void {
  record.observed = { ...record.observed, catalog: false };
  delete record.catalog;
}

/** v1.2: neither the handshake nor tools/list was seen, only the call. */
export function onlyCallSeen(record: HealthRecord): void {
  handshakeUnseen(record);
  catalogUnseen(record);
}
