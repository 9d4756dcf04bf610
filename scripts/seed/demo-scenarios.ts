// The evidence each demo scenario changes: a call that errs, hangs or is never verified; a session that never
// authenticates or agrees a version; a catalog read partly or changed under the client.
import type { Call, HealthRecord } from "../../lib/contract";
import type { Random, ServerSpec, ToolSpec } from "./demo-world";

export type SessionScenario =
  | "ok"
  | "needs_auth"
  | "version_unsupported"
  | "no_answer"
  | "capability_missing"
  | "catalog_changed"
  | "catalog_incomplete"
  | "handshake_not_observed"
  | "catalog_not_observed";

export type CallScenario =
  | "success"
  | "verifier_pending"
  | "verifier_unavailable"
  | "verifier_failed"
  | "destination_absent"
  | "tool_error"
  | "server_error"
  | "caller_error"
  | "unknown_tool"
  | "timeout"
  | "no_call"
  | "working";

export const SESSION_WEIGHTS: Record<SessionScenario, number> = {
  ok: 87.5,
  needs_auth: 2.5,
  version_unsupported: 1,
  no_answer: 0.8,
  capability_missing: 0.7,
  catalog_changed: 2.5,
  catalog_incomplete: 1,
  // Contract v1.2: a reporter that saw only part of the session (a sampled trace, a collector attached late).
  handshake_not_observed: 2,
  catalog_not_observed: 1.5,
};

export const CALL_WEIGHTS: Record<CallScenario, number> = {
  success: 66,
  verifier_pending: 5,
  verifier_unavailable: 2,
  verifier_failed: 2.5,
  destination_absent: 2.5,
  tool_error: 6,
  server_error: 2,
  caller_error: 3.5,
  unknown_tool: 1,
  timeout: 5.5,
  no_call: 2,
  working: 2,
};

const iso = (ms: number) => new Date(ms).toISOString();

export function applyCallScenario(
  record: HealthRecord,
  scenario: CallScenario,
  tool: ToolSpec,
  startedAt: number,
) {
  const call = record.call as Call;
  switch (scenario) {
    case "success":
      return;
    case "verifier_pending":
      call.expectedVerifier ??= "db_row";
      delete call.outcome;
      return;
    case "verifier_unavailable":
      call.outcome = {
        checkedAt: call.outcome?.checkedAt ?? iso(startedAt + 20_000),
        verifier: call.expectedVerifier ?? "http_status",
        verdict: "unavailable",
      };
      return;
    case "verifier_failed":
      call.outcome = {
        checkedAt: call.outcome?.checkedAt ?? iso(startedAt + 20_000),
        verifier: call.expectedVerifier ?? "test",
        verdict: "fail",
        receipt: "checksum mismatch",
      };
      return;
    case "destination_absent":
      if (tool.sideEffect === "none") return;
      call.effect = { checkedAt: iso(startedAt + 25_000), status: "absent" };
      delete call.outcome;
      return;
    case "tool_error":
      finishWith(call, { at: iso(startedAt + 900), kind: "result", isError: true, resultType: "complete" });
      return;
    case "server_error":
      finishWith(call, {
        at: iso(startedAt + 1_200),
        kind: "error",
        error: { code: -32603, class: "InternalError" },
      });
      return;
    case "caller_error":
      finishWith(call, {
        at: iso(startedAt + 80),
        kind: "error",
        error: { code: -32602, class: "InvalidParams" },
      });
      return;
    case "unknown_tool":
      call.tool = `${tool.name}_v2`;
      call.inCatalog = false;
      finishWith(call, {
        at: iso(startedAt + 60),
        kind: "error",
        error: { code: -32602, class: "UnknownTool" },
      });
      return;
    case "timeout":
      timedOut(call, startedAt);
      return;
    case "no_call":
      delete record.call;
      return;
    case "working":
      inFlight(call, startedAt, Date.parse(record.observedAt));
      call.deadlineMs = 3_600_000;
      call.inactivityMs = 1_800_000;
      return;
  }
}

function finishWith(call: Call, response: NonNullable<Call["response"]>) {
  call.response = response;
  delete call.task;
  delete call.effect;
  delete call.outcome;
}

export function applySessionScenario(
  random: Random,
  record: HealthRecord,
  scenario: SessionScenario,
  server: ServerSpec,
  startedAt: number,
) {
  const { session } = record;
  switch (scenario) {
    case "ok":
      return;
    case "needs_auth":
      session.auth = {
        challenge: {
          status: 401,
          at: iso(startedAt - 2_000),
          error: "invalid_token",
          requiredScope: `${server.team}:write`,
        },
      };
      // Calls made under an expired token hang or never start: a hanging write is an effect in doubt behind the
      // auth problem (shadowed effect_unknown).
      if (record.call && random.chance(0.6)) timedOut(record.call, startedAt);
      else delete record.call;
      return;
    case "version_unsupported":
      session.protocol.acceptedVersion = "2024-11-05";
      delete record.call;
      return;
    case "no_answer":
      delete session.server;
      delete session.protocol.acceptedVersion;
      delete session.protocol.initializedAt;
      delete record.catalog;
      delete record.call;
      return;
    case "capability_missing":
      session.capabilities.required.server = [...session.capabilities.required.server, "resources"];
      return;
    case "catalog_changed":
      if (record.catalog) record.catalog.listChangedAt = [iso(startedAt - 5_000)];
      return;
    case "catalog_incomplete":
      if (record.catalog) record.catalog.complete = false;
      return;
    case "handshake_not_observed":
      record.observed = { handshake: false };
      delete session.protocol.initializedAt;
      return;
    case "catalog_not_observed":
      record.observed = { catalog: false };
      delete record.catalog;
      return;
  }
}

function timedOut(call: Call, startedAt: number) {
  delete call.response;
  delete call.task;
  delete call.effect;
  delete call.outcome;
  call.progress = [{ at: iso(startedAt + 4_000), token: call.progressToken ?? 0, progress: 1 }];
}

function inFlight(call: Call, startedAt: number, observedAtMs: number) {
  delete call.effect;
  delete call.outcome;
  call.progress = [5, 20, 45].map((progress, i) => ({
    at: iso(Math.min(observedAtMs, startedAt + (i + 1) * 8_000)),
    token: call.progressToken ?? 0,
    progress,
    total: 100,
  }));
  if (call.task) {
    call.task = { id: call.task.id, status: "working", updatedAt: iso(startedAt + 20_000) };
  } else {
    delete call.response;
  }
}

/** The same call a couple of seconds in, still running: the chain's first record, superseded by the final one. */
export function inFlightSnapshot(record: HealthRecord, startedAt: number): HealthRecord {
  const early = structuredClone(record);
  early.recordId = `${record.recordId}:early`;
  early.observedAt = iso(startedAt + 2_500);
  const call = early.call as Call;
  delete call.effect;
  delete call.outcome;
  call.progress = [];
  if (call.task) call.task = { id: call.task.id, status: "working", updatedAt: iso(startedAt + 1_000) };
  else delete call.response;
  return early;
}
