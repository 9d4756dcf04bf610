import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { CollectorRecord } from "@/packages/collector/src";
import { portOutsideEphemeralRange } from "../support/ports";
import { localHttp } from "./helpers";

// An agent that returns from main without flush() or close() (issue 43: 200 calls, 0 chains, exit 0, no word) now
// delivers what its collector holds when the event loop runs dry, or says on stderr what it could not deliver.
const AGENT = resolve("tests/collector/servers/agent-no-flush.ts");

type Run = { code: number | null; pendingAtReturn: number; stderr: string; exitAfterMs: number };

function runAgent(receiptUrl: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ["--import", "tsx", AGENT], {
      env: { ...process.env, RECEIPT_URL: receiptUrl, CALLS: "20", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let printedAt: number | undefined;
    const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (printedAt === undefined && stdout.includes("\n")) printedAt = performance.now();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once("error", fail);
    child.once("exit", (code) => {
      clearTimeout(killer);
      if (printedAt === undefined) return fail(new Error(`agent printed nothing (exit ${code}): ${stderr}`));
      const { pendingAtReturn } = JSON.parse(stdout.trim().split("\n")[0] as string) as {
        pendingAtReturn: number;
      };
      done({ code, pendingAtReturn, stderr, exitAfterMs: performance.now() - printedAt });
    });
  });
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function receiver() {
  const received: string[] = [];
  const server = await localHttp((_req, res, body) => {
    const records = (JSON.parse(body) as { records: CollectorRecord[] }).records;
    received.push(...records.map((record) => record.recordId));
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ results: records.map((r) => ({ recordId: r.recordId, duplicate: false })) }));
  });
  closers.push(server.close);
  return { url: server.url, received };
}

const warnings = (stderr: string) =>
  stderr.split("\n").filter((line) => line.startsWith("@receipt/collector:"));

describe("an agent that returns without flush()", () => {
  it("Receipt up: every record it held is delivered before the process exits, exit 0, no warning", async () => {
    const { url, received } = await receiver();
    const run = await runAgent(url);
    expect(run.code).toBe(0);
    expect(run.pendingAtReturn).toBeGreaterThanOrEqual(40); // 20 calls, each a start and an end, and the session's
    expect(received).toHaveLength(run.pendingAtReturn);
    expect(new Set(received).size).toBe(received.length);
    expect(warnings(run.stderr)).toEqual([]);
  });

  it("Receipt unreachable: exits within the flush timeout, exit 0, and says once how many records were lost", async () => {
    const run = await runAgent(`http://127.0.0.1:${await portOutsideEphemeralRange()}`, {
      FLUSH_TIMEOUT_MS: "1500",
    });
    expect(run.code).toBe(0);
    expect(run.exitAfterMs).toBeLessThan(1_500 + 1_500);
    expect(warnings(run.stderr)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^@receipt/collector: ${run.pendingAtReturn} records not delivered to http://127\\.0\\.0\\.1:\\d+/api/v1/records before the process exited \\(Receipt not reachable\\); await close\\(\\) or flush\\(\\) before exiting$`,
        ),
      ),
    ]);
  });

  it("flushOnExit: false keeps the old behaviour: nothing sent, nothing said", async () => {
    const { url, received } = await receiver();
    const run = await runAgent(url, { FLUSH_ON_EXIT: "0" });
    expect(run.code).toBe(0);
    expect(run.pendingAtReturn).toBeGreaterThan(0);
    expect(received).toEqual([]);
    expect(warnings(run.stderr)).toEqual([]);
  });
});
