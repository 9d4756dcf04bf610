import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { createTestDatabase } from "@/tests/support/test-database";

// Issue 19 item 6: `npm run demo` against a Receipt it cannot reach the database of, with
// RECEIPT_URL and RECEIPT_KEY. The demo's DATABASE_URL points nowhere: had it touched a database
// (to create or revoke a key of its own) it would fail.
const UNREACHABLE_DATABASE = "postgresql://demo:demo@127.0.0.1:9/nowhere";

function runDemo(
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/demo.ts"], {
      env: { ...process.env, DATABASE_URL: UNREACHABLE_DATABASE, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

describe("npm run demo against a remote Receipt (RECEIPT_URL + RECEIPT_KEY)", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let app: RunningApp;
  let key: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    app = await startApp(db.url);
    key = await createTestKey(db.url, "remote-demo", ["ingest", "read"]);
  });
  afterAll(async () => {
    await app?.stop();
    await db?.drop();
  });

  it("posts its sessions with the given key, creates no key, and prints each chain's state", async () => {
    const demo = await runDemo({ RECEIPT_URL: app.baseUrl, RECEIPT_KEY: key });
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).toContain("(key RECEIPT_KEY)");
    const rows = demo.stdout.split("\n").filter((line) => line.startsWith("demo-"));
    expect(rows.length).toBeGreaterThanOrEqual(5);
    for (const row of rows) expect(row).not.toMatch(/HTTP \d{3}/);
    // What the demo printed is what Receipt stored: read one chain back with the same key.
    const [chainId, state] = (rows[0] ?? "").split(/\s+/);
    const stored = await apiClient(app.baseUrl, key).get(
      `/api/v1/chains/${encodeURIComponent(chainId ?? "")}`,
    );
    expect(stored.status).toBe(200);
    expect(((await stored.json()) as { chain: { state: string } }).chain.state).toBe(state);
  });

  it("refuses to guess a key for a Receipt on another host", async () => {
    const demo = await runDemo({ RECEIPT_URL: "https://receipt.invalid", RECEIPT_KEY: "", DATABASE_URL: "" });
    expect(demo.code).toBe(1);
    expect(demo.stderr).toMatch(/set RECEIPT_KEY/);
  });
});
