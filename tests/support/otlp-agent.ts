import { spawn } from "node:child_process";
import path from "node:path";
import pg from "pg";
import { expect } from "vitest";
import type { ChainListItem, ChainPage } from "@/lib/dashboard/api-types";
import { portOutsideEphemeralRange } from "@/tests/support/ports";
import type { AgentConfig, AgentReport } from "@/tests/fixtures/otlp-agent/protocol";

const root = path.resolve(import.meta.dirname, "../..");
const AGENT = path.join(root, "tests/fixtures/otlp-agent/agent.ts");

/** An agent run starts Node, tsx, the OpenTelemetry SDK and server-everything: seconds each on a loaded machine. */
export const AGENT_TEST_TIMEOUT = 120_000;

/** Runs the agent fixture as its own process (real MCP SDK, real instrumentation, real exporter) and reads its report. */
export async function runAgent(
  config: Omit<AgentConfig, "serverPort">,
  env: Record<string, string> = {},
): Promise<AgentReport> {
  const full: AgentConfig =
    config.transport === "http" ? { ...config, serverPort: await portOutsideEphemeralRange() } : config;
  // The agent sees no OTEL_* variable of the test runner's environment, only those the test gives it.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("OTEL_")),
  );
  const child = spawn(process.execPath, ["--import", "tsx", AGENT, JSON.stringify(full)], {
    cwd: root,
    env: { ...inherited, ...env } as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  const last = stdout.trim().split("\n").at(-1) ?? "";
  if (code !== 0 || !last.startsWith("{")) throw new Error(`agent exited ${code}:\n${stdout}\n${stderr}`);
  return JSON.parse(last) as AgentReport;
}

/** Every export reached Receipt and was accepted whole (no failure, no partial-success warning from the SDK). */
export function expectAcceptedExports(report: AgentReport) {
  expect(report.exports.length, "exports made").toBeGreaterThan(0);
  expect(
    report.exports.filter((e) => e.code !== 0),
    "failed exports",
  ).toEqual([]);
  expect(report.warnings, "OpenTelemetry SDK warnings").toEqual([]);
}

/** Every chain of one agent run (its MCP client name), read back through the read API. */
export async function listChainsOfRun(
  get: (pathAndQuery: string) => Promise<Response>,
  runId: string,
): Promise<ChainListItem[]> {
  const response = await get(`/api/v1/chains?client=${encodeURIComponent(runId)}&limit=200`);
  expect(response.status, "GET /api/v1/chains").toBe(200);
  return ((await response.json()) as ChainPage).chains;
}

/** The tool-call chains of one agent run, by tool (a run calls each tool once). */
export async function chainsOfRun(
  get: (pathAndQuery: string) => Promise<Response>,
  runId: string,
): Promise<Map<string, ChainListItem>> {
  const byTool = new Map<string, ChainListItem>();
  for (const chain of await listChainsOfRun(get, runId)) {
    if (chain.tool === null) continue;
    expect(byTool.has(chain.tool ?? ""), `one chain per tool in run ${runId}`).toBe(false);
    byTool.set(chain.tool ?? "", chain);
  }
  return byTool;
}

/**
 * The request-layer verdict of a chain: its own state, or — when a session or catalog rule decided first —
 * the state the request layer would have given (`shadowed`, contract §4).
 */
export function requestVerdict(chain: ChainListItem): { state: string; reason: string | undefined } {
  if (chain.shadowed && (chain.layer === "session" || chain.layer === "catalog"))
    return { state: chain.shadowed.state, reason: chain.shadowed.reason };
  return { state: chain.state, reason: chain.reasons[0] };
}

/** Every row of every table in the database whose text contains `needle` (table name and row count). */
export async function rowsContaining(databaseUrl: string, needle: string): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const tables = await client.query<{ schema: string; name: string }>(
      `select table_schema as schema, table_name as name from information_schema.tables
       where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')`,
    );
    expect(tables.rows.length, "tables found").toBeGreaterThan(5);
    const found: Record<string, number> = {};
    for (const { schema, name } of tables.rows) {
      const table = `"${schema}"."${name}"`;
      const result = await client.query<{ count: string }>(
        `select count(*) as count from ${table} t where strpos(t::text, $1) > 0`,
        [needle],
      );
      const count = Number(result.rows[0]?.count ?? 0);
      if (count > 0) found[`${schema}.${name}`] = count;
    }
    return found;
  } finally {
    await client.end();
  }
}
