// Builds demo health records: one chain per call, with the mix of evidence a real estate produces — mostly
// receipted successes, calls nobody verifies, and the failures each state exists for.
import type { Call, HealthRecord } from "../../lib/contract";
import { CLIENTS, catalogHash, type Random, SERVERS, type ServerSpec, type ToolSpec } from "./demo-world";
import {
  applyCallScenario,
  applySessionScenario,
  CALL_WEIGHTS,
  inFlightSnapshot,
  SESSION_WEIGHTS,
} from "./demo-scenarios";

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

export function session(server: ServerSpec, client: (typeof CLIENTS)[number], id: string, startedAt: number) {
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
