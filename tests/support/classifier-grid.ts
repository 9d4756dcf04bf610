/**
 * A fixed grid of records without `observed` — every session, catalog and call shape the
 * classifier distinguishes, in both eras — used to pin classification across contract versions.
 * Deterministic and independent of fast-check, so a golden file of its results stays valid.
 * Imports only types from lib/, so it can be run against an older classifier too.
 */
import type { Call, HealthRecord } from "@/lib/contract/record";
import { legacyRecord, modernRecord, t } from "./record-builders";

type Change = (record: HealthRecord) => void;

const callOf = (record: HealthRecord): Call => {
  if (record.call === undefined) throw new Error("grid record without a call");
  return record.call;
};

const SESSIONS: Record<string, Change> = {
  ok: () => {},
  challenge: (r) => {
    r.session.auth = { challenge: { status: 401, at: t(-10) } };
  },
  resolved: (r) => {
    r.session.auth = { challenge: { status: 401, at: t(-10) }, resolvedAt: t(-10) };
  },
  no_answer: (r) => {
    delete r.session.server;
    delete r.session.protocol.acceptedVersion;
  },
  no_agreed_version: (r) => {
    delete r.session.protocol.acceptedVersion;
  },
  bad_version: (r) => {
    r.session.protocol.acceptedVersion = "2024-11-05";
  },
  no_init: (r) => {
    delete r.session.protocol.initializedAt;
  },
  missing_cap: (r) => {
    r.session.capabilities.required.client = [...r.session.capabilities.required.client, "sampling"];
  },
};

const CATALOGS: Record<string, Change> = {
  ok: () => {},
  absent: (r) => {
    delete r.catalog;
  },
  incomplete: (r) => {
    if (r.catalog) r.catalog.complete = false;
  },
  changed: (r) => {
    if (r.catalog) r.catalog.listChangedAt = [t(-500)];
  },
  expired: (r) => {
    if (r.catalog) {
      r.catalog.ttlMs = 100;
      r.catalog.refreshedAt = t(-1_000);
    }
  },
};

const errorResponse =
  (code: number): Change =>
  (r) => {
    const call = callOf(r);
    delete call.task;
    call.response = { at: t(1_000), kind: "error", error: { code, class: "grid" } };
  };

const failedTask =
  (code: number): Change =>
  (r) => {
    const call = callOf(r);
    call.response = { at: t(1_000), kind: "result", resultType: "task" };
    call.task = { id: "task:grid", status: "failed", updatedAt: t(5_000), error: { code, class: "grid" } };
  };

const inFlight = (r: HealthRecord) => {
  const call = callOf(r);
  delete call.response;
  delete call.task;
  delete call.effect;
  delete call.outcome;
};

const CALLS: Record<string, Change> = {
  verified: () => {},
  no_call: (r) => {
    delete r.call;
  },
  llm_judge: (r) => {
    const outcome = callOf(r).outcome;
    if (outcome) outcome.verifier = "llm_judge";
  },
  read_only: (r) => {
    callOf(r).sideEffect = "none";
  },
  tool_error: (r) => {
    const call = callOf(r);
    delete call.task;
    call.response = { at: t(1_000), kind: "result", isError: true };
  },
  server_error: errorResponse(-32603),
  caller_error: errorResponse(-32602),
  refused_32021: errorResponse(-32021),
  refused_32022: errorResponse(-32022),
  elicitation_32042: errorResponse(-32042),
  task_failed_32021: failedTask(-32021),
  task_failed: failedTask(-32000),
  unknown_tool: (r) => {
    callOf(r).inCatalog = false;
  },
  in_flight: (r) => {
    inFlight(r);
    r.observedAt = t(5_000);
  },
  deadline_passed: inFlight,
  cancelled_write: (r) => {
    inFlight(r);
    callOf(r).cancelledAt = t(2_000);
  },
  cancelled_read: (r) => {
    inFlight(r);
    const call = callOf(r);
    call.cancelledAt = t(2_000);
    call.sideEffect = "none";
  },
  effect_absent: (r) => {
    const effect = callOf(r).effect;
    if (effect) effect.status = "absent";
  },
  verifier_failed: (r) => {
    const outcome = callOf(r).outcome;
    if (outcome) outcome.verdict = "fail";
  },
  no_outcome: (r) => {
    delete callOf(r).outcome;
  },
  early_outcome: (r) => {
    const outcome = callOf(r).outcome;
    if (outcome) outcome.checkedAt = t(-1);
  },
  task_caller_error: failedTask(-32602),
  task_working: (r) => {
    failedTask(-32000)(r);
    const task = callOf(r).task;
    if (task) {
      task.status = "working";
      delete task.error;
    }
    r.observedAt = t(6_000);
  },
  task_cancelled: (r) => {
    failedTask(-32000)(r);
    const task = callOf(r).task;
    if (task) {
      task.status = "cancelled";
      delete task.error;
    }
  },
  input_required: (r) => {
    inFlight(r);
    callOf(r).response = { at: t(1_000), kind: "result", resultType: "input_required" };
    r.observedAt = t(2_000);
  },
  inactive: (r) => {
    inFlight(r);
    callOf(r).inactivityMs = 1_000;
    r.observedAt = t(5_000);
  },
  early_effect: (r) => {
    const effect = callOf(r).effect;
    if (effect) effect.checkedAt = t(-1);
  },
  no_receipt: (r) => {
    const call = callOf(r);
    delete call.outcome;
    delete call.expectedVerifier;
  },
  outcome_unavailable: (r) => {
    const outcome = callOf(r).outcome;
    if (outcome) outcome.verdict = "unavailable";
  },
  bad_progress: (r) => {
    inFlight(r);
    r.observedAt = t(5_000);
    callOf(r).progress = [{ at: t(1_000), token: "other", progress: 1 }];
  },
};

/**
 * Session × catalog pairs: every session shape with the catalog fine and absent (precedence),
 * every catalog shape behind a fine session. Other pairs repeat what these decide.
 */
const UPSTREAM: [string, string][] = [
  ...Object.keys(SESSIONS).flatMap((session): [string, string][] => [
    [session, "ok"],
    [session, "absent"],
  ]),
  ...Object.keys(CATALOGS)
    .filter((catalog) => catalog !== "ok" && catalog !== "absent")
    .map((catalog): [string, string] => ["ok", catalog]),
];

/** Every call shape behind every upstream pair, in both eras, named `era/session/catalog/call`. */
export function classifierGrid(): { name: string; record: HealthRecord }[] {
  const grid: { name: string; record: HealthRecord }[] = [];
  for (const [era, base] of [
    ["legacy", legacyRecord],
    ["modern", modernRecord],
  ] as const) {
    for (const [session, catalog] of UPSTREAM) {
      for (const [call, changeCall] of Object.entries(CALLS)) {
        const record = base();
        SESSIONS[session]?.(record);
        CATALOGS[catalog]?.(record);
        changeCall(record);
        grid.push({ name: `${era}/${session}/${catalog}/${call}`, record });
      }
    }
  }
  return grid;
}

/** One line per result: state, layer, reasons, retrySafe, evidence, nextCheckAt, shadowed (empty when absent). */
export function compactClassification(result: {
  state: string;
  layer: string;
  reasons: readonly string[];
  retrySafe?: boolean;
  evidence?: string;
  nextCheckAt?: string;
  shadowed?: { state: string; reason: string };
}): string {
  const shadowed = result.shadowed ? `${result.shadowed.state}:${result.shadowed.reason}` : "";
  return [
    result.state,
    result.layer,
    result.reasons.join(","),
    result.retrySafe ?? "",
    result.evidence ?? "",
    result.nextCheckAt ?? "",
    shadowed,
  ]
    .join(" ")
    .trimEnd();
}
