/**
 * A payments MCP server built with the official SDK, for the reconciliation story (issue 40 §4): its write tool
 * inserts a row into a real PostgreSQL table (LEDGER_DATABASE_URL) and posts to a real HTTP service (LEDGER_WEBHOOK),
 * and a per-call `mode` makes it misbehave as real servers do: `commit_then_hang` writes and never answers,
 * `hang_before_commit` never writes and never answers, `fail` refuses without writing. Run over stdio through tsx.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import pg from "pg";
import { z } from "zod";

const db = new pg.Pool({ connectionString: process.env.LEDGER_DATABASE_URL, max: 2 });
const mcp = new McpServer({ name: "ledger", version: "1.0.0" });
const forever = () => new Promise<never>(() => {});

mcp.registerTool(
  "record_payment",
  {
    inputSchema: {
      key: z.string(),
      amount: z.number(),
      mode: z.enum(["ok", "commit_then_hang", "hang_before_commit", "fail"]).default("ok"),
    },
  },
  async ({ key, amount, mode }) => {
    if (mode === "hang_before_commit") return forever();
    if (mode === "fail")
      return { isError: true, content: [{ type: "text" as const, text: "card declined" }] };
    // The story's ledger has a unique key (a duplicate is refused there, so it counts rows, not errors); the race's
    // (LEDGER_TABLE) has none, so a write the guard let through twice would be a second row.
    const table = process.env.LEDGER_TABLE === "race_ledger" ? "race_ledger" : "ledger";
    await db.query(`insert into ${table} (operation_key, amount) values ($1, $2)`, [key, amount]);
    if (process.env.LEDGER_WEBHOOK)
      await fetch(process.env.LEDGER_WEBHOOK, { method: "POST", body: JSON.stringify({ key, amount }) });
    if (mode === "commit_then_hang") return forever();
    return { content: [{ type: "text" as const, text: `recorded ${key}` }] };
  },
);

await mcp.connect(new StdioServerTransport());
