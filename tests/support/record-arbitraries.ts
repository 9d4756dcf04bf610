/**
 * fast-check arbitraries for health records, shared by the classifier property tests and the
 * validation fast-path equivalence test. Records are built around the two base records.
 *
 * Domain: a record is a snapshot taken at observedAt, so every progress notification is at or
 * before observedAt (the client cannot have received it later).
 */
import fc from "fast-check";
import type { Call, HealthRecord } from "@/lib/contract/record";
import { legacyRecord, modernRecord, requireCall, t } from "./record-builders";

const ERROR_CODES = [-32700, -32600, -32601, -32602, -32020, -32021, -32022, -32042, -32603, -32000];
const TOKENS = ["pt", 1, "1"] as const;
const VERIFIERS = ["file_hash", "db_row", "http_status", "test", "llm_judge", "other"] as const;

export const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

export const effectArb = fc.record({
  checkedAt: fc.integer({ min: -2_000, max: 90_000 }),
  status: fc.constantFrom("committed", "absent", "unknown" as const),
});
export const outcomeArb = fc.record({
  checkedAt: fc.integer({ min: -2_000, max: 90_000 }),
  verifier: fc.constantFrom(...VERIFIERS),
  verdict: fc.constantFrom("pass", "fail", "unavailable" as const),
});

const responseArb = fc.oneof(
  fc.record({
    kind: fc.constant("result" as const),
    resultType: fc.constantFrom("complete", undefined),
    isError: optional(fc.boolean()),
  }),
  fc.record({ kind: fc.constant("error" as const), code: fc.constantFrom(...ERROR_CODES) }),
  fc.record({ kind: fc.constant("input_required" as const) }),
  fc.record({
    kind: fc.constant("task" as const),
    task: optional(
      fc.record({
        status: fc.constantFrom("working", "input_required", "completed", "failed", "cancelled" as const),
        updatedAt: fc.integer({ min: 0, max: 90_000 }),
        resultIsError: optional(fc.boolean()),
        errorCode: optional(fc.constantFrom(...ERROR_CODES)),
      }),
    ),
  }),
);

/** Every knob the generator turns; times are offsets in ms from T0 (the call starts at 0). */
const knobsArb = fc.record({
  era: fc.constantFrom("legacy", "modern" as const),
  observedAt: fc.integer({ min: 0, max: 90_000 }),
  session: fc.constantFrom(
    "ok",
    "ok",
    "ok",
    "ok",
    "challenge",
    "resolved",
    "no_answer",
    "bad_version",
    "no_init",
    "missing_cap",
  ),
  catalog: fc.constantFrom("ok", "ok", "ok", "ok", "absent", "incomplete", "changed", "expired"),
  hasCall: fc.integer({ min: 0, max: 9 }).map((n) => n > 0), // mostly chains with a call
  inCatalog: optional(fc.boolean()),
  sideEffect: fc.constantFrom("none", "write", "unknown" as const),
  expectedVerifier: optional(fc.constantFrom(...VERIFIERS)),
  deadlineMs: fc.integer({ min: 1, max: 60_000 }),
  inactivityFraction: fc.double({ min: 0, max: 1, noNaN: true }),
  progressToken: optional(fc.constantFrom(...TOKENS)),
  progress: fc.array(
    fc.record({
      at: fc.integer({ min: -1_000, max: 90_000 }),
      token: fc.constantFrom(...TOKENS),
      progress: fc.integer({ min: 0, max: 10 }),
    }),
    { maxLength: 5 },
  ),
  responseAt: fc.integer({ min: 0, max: 90_000 }),
  response: optional(responseArb),
  cancelledAt: optional(fc.integer({ min: 0, max: 90_000 })),
  effect: optional(effectArb),
  outcome: optional(outcomeArb),
  // v1.2: what the reporter saw. Mostly absent (everything seen), as most reporters send.
  observed: fc.option(fc.record({ handshake: optional(fc.boolean()), catalog: optional(fc.boolean()) }), {
    nil: undefined,
    freq: 2,
  }),
});

type Knobs = typeof knobsArb extends fc.Arbitrary<infer K> ? K : never;

function buildRecord(k: Knobs): HealthRecord {
  const record = k.era === "legacy" ? legacyRecord() : modernRecord();
  const observedAt = k.observedAt;
  record.observedAt = t(observedAt);
  const { protocol, capabilities } = record.session;
  if (k.session === "challenge") record.session.auth = { challenge: { status: 401, at: t(-10) } };
  if (k.session === "resolved")
    record.session.auth = { challenge: { status: 401, at: t(-10) }, resolvedAt: t(-10) };
  if (k.session === "no_answer") {
    delete record.session.server;
    delete protocol.acceptedVersion;
  }
  if (k.session === "bad_version") protocol.acceptedVersion = "2024-11-05";
  if (k.session === "no_init") delete protocol.initializedAt;
  if (k.session === "missing_cap")
    capabilities.required.client = [...capabilities.required.client, "sampling"];

  if (k.catalog === "absent") delete record.catalog;
  else if (record.catalog !== undefined) {
    if (k.catalog === "incomplete") record.catalog.complete = false;
    if (k.catalog === "changed") record.catalog.listChangedAt = [t(-500)];
    if (k.catalog === "expired") {
      record.catalog.ttlMs = 100;
      record.catalog.refreshedAt = t(-1_000);
    }
  }

  applyObserved(record, k);

  if (!k.hasCall) {
    delete record.call;
    return record;
  }
  const call = requireCall(record);
  call.inCatalog = k.inCatalog;
  if (call.inCatalog === undefined) delete call.inCatalog;
  call.sideEffect = k.sideEffect;
  setOptional(call, "expectedVerifier", k.expectedVerifier);
  call.deadlineMs = k.deadlineMs;
  call.inactivityMs = Math.max(1, Math.round(k.deadlineMs * k.inactivityFraction));
  setOptional(call, "progressToken", k.progressToken);
  // Snapshot domain: nothing was received after observedAt.
  call.progress = k.progress
    .filter((entry) => entry.at <= observedAt)
    .map((entry) => ({ at: t(entry.at), token: entry.token, progress: entry.progress }));
  setOptional(call, "cancelledAt", k.cancelledAt === undefined ? undefined : t(k.cancelledAt));
  applyResponse(call, k);
  setOptional(call, "effect", k.effect && { checkedAt: t(k.effect.checkedAt), status: k.effect.status });
  setOptional(
    call,
    "outcome",
    k.outcome && {
      checkedAt: t(k.outcome.checkedAt),
      verifier: k.outcome.verifier,
      verdict: k.outcome.verdict,
    },
  );
  return record;
}

/** A layer the reporter did not see carries none of its evidence (the v1.2 cross-field rules). */
function applyObserved(record: HealthRecord, k: Knobs): void {
  if (k.observed === undefined) return;
  const observed: NonNullable<HealthRecord["observed"]> = {};
  setOptional(observed, "handshake", k.observed.handshake);
  setOptional(observed, "catalog", k.observed.catalog);
  record.observed = observed;
  if (observed.handshake === false) delete record.session.protocol.initializedAt;
  if (observed.catalog === false) delete record.catalog;
}

function applyResponse(call: Call, k: Knobs): void {
  delete call.task;
  const response = k.response;
  const at = t(k.responseAt);
  if (response === undefined) delete call.response;
  else if (response.kind === "result") {
    call.response = { at, kind: "result" };
    setOptional(call.response, "resultType", response.resultType);
    setOptional(call.response, "isError", response.isError);
  } else if (response.kind === "error") {
    call.response = { at, kind: "error", error: { code: response.code, class: "generated" } };
  } else if (response.kind === "input_required") {
    call.response = { at, kind: "result", resultType: "input_required" };
  } else {
    call.response = { at, kind: "result", resultType: "task" };
    const task = response.task;
    if (task !== undefined) {
      call.task = { id: "task:gen", status: task.status, updatedAt: t(task.updatedAt) };
      if (task.resultIsError !== undefined) call.task.result = { isError: task.resultIsError };
      if (task.errorCode !== undefined) call.task.error = { code: task.errorCode, class: "generated" };
    }
  }
}

export function setOptional<T extends object, K extends keyof T>(
  target: T,
  key: K,
  value: T[K] | undefined,
): void {
  if (value === undefined) delete target[key];
  else target[key] = value;
}

export const recordArb = knobsArb.map(buildRecord);
