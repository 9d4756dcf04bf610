import { execFile, execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO } from "./pack";

// Issue 19 item 7: the official MCP conformance client scenarios, run against the same agent bare and
// wrapped by the collector. The conformance CLI needs Node 22: it and the `node` package (Node 22 as
// an npm package) are installed into a cache folder from the registry, not into the project, whose
// own scripts stay on the project's Node. The agent itself runs on the project's Node.
const CONFORMANCE = "@modelcontextprotocol/conformance@0.1.16";
const NODE_22 = "node@22.23.3";
const TOOLS = join(REPO, "node_modules/.cache/receipt-conformance");
const CLIENT = join(REPO, "tests/package/conformance/client.ts");

type Check = { id: string; status: string };
type AgentReport = {
  sent: { method?: string; params?: Record<string, unknown> }[];
  states: { state: string; reason: string; evidence?: string }[];
  catalogToolCount?: number;
  error?: string;
};
type Run = { checks: Check[]; agent: AgentReport };

/** Each scenario, and what the collector should make of it. */
const SCENARIOS: { name: string; passes: boolean; states: { state: string; reason: string }[] }[] = [
  { name: "initialize", passes: true, states: [] }, // a healthy session with no call records nothing
  { name: "tools_call", passes: true, states: [{ state: "healthy", reason: "outcome.verified" }] },
  {
    name: "elicitation-sep1034-client-defaults",
    passes: true,
    states: [{ state: "unverified", reason: "outcome.no_receipt" }],
  },
  { name: "sse-retry", passes: true, states: [{ state: "unverified", reason: "outcome.no_receipt" }] },
  // The agent has no OAuth provider: the scenario fails bare and wrapped alike, and the collector says why.
  {
    name: "auth/metadata-default",
    passes: false,
    states: [{ state: "needs_auth", reason: "auth.challenge_unresolved" }],
  },
];

function installTools(): string | undefined {
  const node = join(TOOLS, "node_modules/.bin/node");
  const cli = join(TOOLS, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
  if (!existsSync(node) || !existsSync(cli)) {
    mkdirSync(TOOLS, { recursive: true });
    writeFileSync(
      join(TOOLS, "package.json"),
      JSON.stringify({ name: "receipt-conformance", private: true }),
    );
    try {
      execFileSync(
        "npm",
        ["install", "--prefer-offline", "--no-audit", "--no-fund", "--save-exact", NODE_22, CONFORMANCE],
        { cwd: TOOLS, stdio: ["ignore", "ignore", "pipe"], timeout: 300_000 },
      );
    } catch (error) {
      return `could not install ${NODE_22} and ${CONFORMANCE} from the registry: ${String(error).slice(0, 300)}`;
    }
  }
  const version = execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
  return /^v2[2-9]\./.test(version) ? undefined : `the node package gave ${version}, not Node 22+`;
}

/** Non-INFO checks; the SSE retry timing measures the machine's load, not the client, so only its presence counts. */
function verdicts(checks: Check[]): Check[] {
  return checks
    .filter((check) => check.status !== "INFO")
    .map((check) => (check.id === "client-sse-retry-timing" ? { id: check.id, status: "measured" } : check))
    .map(({ id, status }) => ({ id, status }))
    .sort((a, b) => a.id.localeCompare(b.id) || a.status.localeCompare(b.status));
}

/** What the agent put on the wire, less the progress token the collector asks for (its only addition). */
function wire(sent: AgentReport["sent"]): unknown[] {
  return sent.map((message) => {
    const meta = message.params?._meta as Record<string, unknown> | undefined;
    if (!meta || !("progressToken" in meta)) return message;
    const { progressToken: _token, ...rest } = meta;
    const params = { ...message.params };
    if (Object.keys(rest).length > 0) params._meta = rest;
    else delete params._meta;
    return { ...message, params };
  });
}

/** The results folder is named after the scenario and a timestamp (and nested for "auth/…"). */
function findFile(dir: string, name: string): string | undefined {
  if (!existsSync(dir)) return undefined;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isFile() && entry.name === name) return path;
    if (entry.isDirectory()) {
      const found = findFile(path, name);
      if (found) return found;
    }
  }
  return undefined;
}

describe("MCP conformance client scenarios, bare vs wrapped by the collector", () => {
  let unavailable: string | undefined;
  let work: string;

  beforeAll(() => {
    unavailable = installTools();
    work = mkdtempSync(join(tmpdir(), "receipt-conformance-"));
  }, 360_000);
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  async function runScenario(scenario: string, mode: "bare" | "wrapped"): Promise<Run> {
    const dir = join(work, `${scenario.replace(/\W/g, "_")}-${mode}`);
    const out = `${dir}.json`;
    const command = `${process.execPath} --import tsx ${CLIENT}`;
    const cli = join(TOOLS, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
    const args = [
      cli,
      "client",
      "--command",
      command,
      "--scenario",
      scenario,
      "--timeout",
      "40000",
      "-o",
      dir,
    ];
    await promisify(execFile)(join(TOOLS, "node_modules/.bin/node"), args, {
      cwd: REPO,
      env: { ...process.env, RECEIPT_CONFORMANCE_MODE: mode, RECEIPT_CONFORMANCE_OUT: out },
      timeout: 90_000,
    }).catch(() => undefined); // a failed scenario exits non-zero: its checks say which, compared below
    const checksFile = findFile(dir, "checks.json");
    if (!checksFile) throw new Error(`conformance wrote no checks for ${scenario} (${mode})`);
    const checks = JSON.parse(readFileSync(checksFile, "utf8")) as Check[];
    const agent = JSON.parse(readFileSync(out, "utf8")) as AgentReport;
    return { checks, agent };
  }

  for (const scenario of SCENARIOS)
    it(`${scenario.name}: same results and wire bare and wrapped; the collector records what happened`, async (context) => {
      if (unavailable) context.skip(`conformance needs Node 22: ${unavailable}`);
      // Side by side: each run has its own scenario server on its own port.
      const [bare, wrapped] = await Promise.all([
        runScenario(scenario.name, "bare"),
        runScenario(scenario.name, "wrapped"),
      ]);

      expect(verdicts(wrapped.checks)).toEqual(verdicts(bare.checks));
      expect(verdicts(bare.checks).length).toBeGreaterThan(0);
      const passed = verdicts(bare.checks).every((check) => ["SUCCESS", "measured"].includes(check.status));
      expect(passed).toBe(scenario.passes);
      expect(wire(wrapped.agent.sent)).toEqual(wire(bare.agent.sent));

      expect(bare.agent.states).toEqual([]);
      expect(wrapped.agent.states.map(({ state, reason }) => ({ state, reason }))).toEqual(scenario.states);
    }, 200_000);
});
