// The made-up but plausible estate the demo seed describes: MCP servers with their tools, the agents calling them.
import { createHash } from "node:crypto";

export type Verifier = "file_hash" | "db_row" | "http_status" | "test" | "llm_judge" | "other";

export type ToolSpec = {
  name: string;
  sideEffect: "none" | "write" | "unknown";
  /** The verifier its team declared; undefined = nobody did (those calls stay unverified). */
  verifier?: Verifier;
  /** Long-running tools answer with a task handle (modern era). */
  task?: boolean;
};

export type ServerSpec = {
  name: string;
  version: string;
  era: "legacy" | "modern";
  transport: "stdio" | "streamable-http";
  team: string;
  tools: ToolSpec[];
};

export const SERVERS: ServerSpec[] = [
  {
    name: "reports-mcp",
    version: "2.3.1",
    era: "legacy",
    transport: "streamable-http",
    team: "reports",
    tools: [
      { name: "create_report", sideEffect: "write", verifier: "db_row" },
      { name: "list_reports", sideEffect: "none" },
      { name: "get_report", sideEffect: "none", verifier: "http_status" },
    ],
  },
  {
    name: "warehouse-export",
    version: "1.4.0",
    era: "modern",
    transport: "streamable-http",
    team: "data",
    tools: [
      { name: "export_dataset", sideEffect: "write", verifier: "file_hash", task: true },
      { name: "preview_rows", sideEffect: "none" },
    ],
  },
  {
    name: "files-mcp",
    version: "0.9.2",
    era: "legacy",
    transport: "stdio",
    team: "platform",
    tools: [
      { name: "write_file", sideEffect: "write", verifier: "file_hash" },
      { name: "read_file", sideEffect: "none" },
      { name: "search_files", sideEffect: "none" },
    ],
  },
  {
    name: "github-mcp",
    version: "1.12.0",
    era: "legacy",
    transport: "streamable-http",
    team: "support",
    tools: [
      { name: "create_issue", sideEffect: "write", verifier: "http_status" },
      { name: "add_comment", sideEffect: "write" },
      { name: "list_issues", sideEffect: "none" },
    ],
  },
  {
    name: "billing-api",
    version: "3.0.0",
    era: "modern",
    transport: "streamable-http",
    team: "billing",
    tools: [
      { name: "create_invoice", sideEffect: "write", verifier: "db_row" },
      { name: "issue_refund", sideEffect: "unknown", verifier: "db_row" },
      { name: "get_invoice", sideEffect: "none" },
    ],
  },
  {
    name: "search-mcp",
    version: "0.3.0",
    era: "legacy",
    transport: "stdio",
    team: "support",
    tools: [{ name: "summarize_ticket", sideEffect: "none", verifier: "llm_judge" }],
  },
];

export const CLIENTS = [
  { name: "receipt-collector", version: "0.1.0", agent: "weekly-digest" },
  { name: "claude-agent", version: "2.1.0", agent: "triage-bot" },
  { name: "nightly-etl", version: "1.0.3", agent: "etl-nightly" },
  { name: "support-bot", version: "0.4.2", agent: "support-replies" },
];

/** A stable catalog hash per server, shaped like the real one (sha256 of the JCS tool list). */
export function catalogHash(server: ServerSpec): string {
  return `sha256:${createHash("sha256").update(JSON.stringify(server.tools)).digest("hex")}`;
}

/** Deterministic randomness (mulberry32), so `--seed` reproduces a data set exactly. */
export function createRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    chance: (p: number) => next() < p,
    weighted: <T extends string>(weights: Record<T, number>): T => {
      const entries = Object.entries(weights) as [T, number][];
      let roll = next() * entries.reduce((sum, [, w]) => sum + w, 0);
      for (const [value, weight] of entries) {
        roll -= weight;
        if (roll <= 0) return value;
      }
      return entries[entries.length - 1]?.[0] as T;
    },
  };
}

export type Random = ReturnType<typeof createRandom>;
