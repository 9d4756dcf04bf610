// Builds demo health records: one chain per call, with the mix of evidence a real estate produces — mostly
// receipted successes, calls nobody verifies, and the failures each state exists for.
import type { Call, HealthRecord } from "../../lib/contract";
import { CLIENTS, catalogHash, type Random, SERVERS, type ServerSpec, type ToolSpec } from "./demo-world";

type SessionScenario =
  | "ok"
  | "needs_auth"
  | "version_unsupported"
  | "no_answer"
  | "capability_missing"
  | "catalog_changed"
  | "catalog_incomplete";

type CallScenario =
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

const SESSION_WEIGHTS: Record<SessionScenario, number> = {
  ok: 91,
  needs_auth: 2.5,
  version_unsupported: 1,
  no_answer: 0.8,
  capability_missing: 0.7,
  catalog_changed: 2.5,
  catalog_incomplete: 1,
};

const CALL_WEIGHTS: Record<CallScenario, number> = {
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

/**
 * One MCP session of 1–6 chains (one per call) between one client and one server, observed from `firstMs` on.
 * Session and catalog problems hit every chain of the session; call problems one chain each. A quarter of the
 * finished calls also have an earlier in-flight snapshot, so their timeline shows working → final.
 */
export function demoSession(random: Random, key: string, firstMs: number, nowMs: number): HealthRecord[] {
  const server = random.pick(SERVERS);
  const client = random.pick(CLIENTS);
  const sessionScenario = random.weighted(SESSION_WEIGHTS);
  const single = sessionScenario === "version_unsupported" || sessionScenario === "no_answer";
  const count = single ? 1 : random.int(1, 6);
  const env = random.chance(0.8) ? "prod" : "staging";
  const records: HealthRecord[] = [];
  let observedAtMs = firstMs;
  for (let index = 0; index < count && observedAtMs <= nowMs; index++) {
    let scenario = random.weighted(CALL_WEIGHTS);
    // A call can only be "working" while its clocks run; older ones would already have timed out.
    if (scenario === "working" && nowMs - observedAtMs > 10 * 60_000) scenario = "success";
    const tool = random.pick(server.tools);
    const startedAt = observedAtMs - (scenario === "working" ? 40_000 : 60_000);
    const record: HealthRecord = {
      schemaVersion: 1,
      recordId: `rec:${key}-${index}`,
      chainId: `chain:${key}-${index}`,
      observedAt: iso(observedAtMs),
      labels: { env, team: server.team, agent: client.agent },
      session: session(server, client, `sess:${key}`, startedAt),
      catalog: {
        pages: server.tools.length > 2 ? 2 : 1,
        complete: true,
        toolCount: server.tools.length,
        schemaHash: catalogHash(server),
        refreshedAt: iso(startedAt - 30_000),
        ...(server.era === "modern" ? { ttlMs: 300_000 } : {}),
        listChangedAt: [],
      },
      call: baseCall(random, server, tool, startedAt),
    };
    applyCallScenario(record, scenario, tool, startedAt);
    applySessionScenario(random, record, sessionScenario, server, startedAt);
    const finished = scenario === "success" || scenario === "timeout" || scenario === "verifier_failed";
    if (finished && record.call && random.chance(0.25)) records.push(inFlightSnapshot(record, startedAt));
    records.push(record);
    observedAtMs += random.int(15_000, 150_000);
  }
  return records;
}

function session(server: ServerSpec, client: (typeof CLIENTS)[number], id: string, startedAt: number) {
  const modern = server.era === "modern";
  const tasks = server.tools.some((t) => t.task);
  return {
    id,
    client: { name: client.name, version: client.version },
    server: { name: server.name, version: server.version },
    transport: server.transport,
    protocol: modern
      ? {
          era: "modern" as const,
          requestedVersion: "2026-07-28",
          acceptedVersion: "2026-07-28",
          clientSupportedVersions: ["2025-11-25", "2026-07-28"],
          serverSupportedVersions: ["2026-07-28"],
        }
      : {
          era: "legacy" as const,
          requestedVersion: "2025-11-25",
          acceptedVersion: "2025-11-25",
          clientSupportedVersions: ["2025-06-18", "2025-11-25"],
          initializedAt: iso(startedAt - 40_000),
        },
    capabilities: {
      server: modern
        ? ["tools", "extensions", "extensions.io.modelcontextprotocol/tasks", "tasks"]
        : ["tools", "tools.listChanged"],
      client: modern ? ["extensions", "extensions.io.modelcontextprotocol/tasks", "tasks"] : ["elicitation"],
      required: { server: tasks ? ["tools", "tasks"] : ["tools"], client: tasks ? ["tasks"] : [] },
    },
  };
}

function baseCall(random: Random, server: ServerSpec, tool: ToolSpec, startedAt: number): Call {
  const respondedAt = startedAt + random.int(120, 6_000);
  const call: Call = {
    requestId: random.int(1, 90_000),
    tool: tool.name,
    inCatalog: true,
    sideEffect: tool.sideEffect,
    ...(tool.sideEffect !== "none" ? { operationKey: `op:${tool.name}-${random.int(1000, 9999)}` } : {}),
    ...(tool.verifier ? { expectedVerifier: tool.verifier } : {}),
    startedAt: iso(startedAt),
    deadlineMs: 30_000,
    inactivityMs: 15_000,
    progressToken: `pt-${random.int(1, 9999)}`,
    progress: [],
    response: { at: iso(respondedAt), kind: "result", isError: false, resultType: "complete" },
  };
  if (tool.task && server.era === "modern") {
    call.deadlineMs = 900_000;
    call.inactivityMs = 60_000;
    call.response = { at: iso(startedAt + 150), kind: "result", resultType: "task" };
    call.task = {
      id: `task:${random.int(1, 1e6).toString(36)}`,
      status: "completed",
      updatedAt: iso(respondedAt),
      result: { isError: false },
    };
  }
  if (tool.sideEffect !== "none") {
    call.effect = {
      checkedAt: iso(respondedAt + 8_000),
      status: "committed",
      receipt: `${tool.name}/${random.int(1, 99_999)}@v1`,
    };
  }
  if (tool.verifier) {
    const receipt =
      tool.verifier === "file_hash"
        ? `sha256:${random.int(1e8, 9e8).toString(16)}…`
        : tool.verifier === "http_status"
          ? "HTTP 200"
          : `row ${random.int(1, 99_999)} v1`;
    call.outcome = {
      checkedAt: iso(respondedAt + 15_000),
      verifier: tool.verifier,
      verdict: "pass",
      receipt,
    };
  }
  return call;
}

function applyCallScenario(record: HealthRecord, scenario: CallScenario, tool: ToolSpec, startedAt: number) {
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

function applySessionScenario(
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
function inFlightSnapshot(record: HealthRecord, startedAt: number): HealthRecord {
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
