import { spawn } from "node:child_process";
import { resolve } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { expect } from "vitest";
import type { Collector } from "@/packages/collector/src/v2";
import { expectState } from "./helpers";

export const MODERN_SERVER = resolve("tests/collector/servers/modern-server.ts");

/** Any stdio server through the SDK 2.x client transport. */
export function v2Stdio(command: string, args: string[] = [], env: Record<string, string> = {}) {
  return new StdioClientTransport({
    command,
    args,
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: "ignore",
  });
}

/** The SDK 2.x test server over stdio, through the 2.x client transport. */
export function modernStdio(env: Record<string, string> = {}): StdioClientTransport {
  return v2Stdio(process.execPath, ["--import", "tsx", MODERN_SERVER, "stdio"], env);
}

/** The SDK 2.x test server over Streamable HTTP on 127.0.0.1; resolves once it listens. */
export async function startModernHttp(env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ["--import", "tsx", MODERN_SERVER, "http"], {
    env: { ...process.env, ...env, PORT: "0" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const port = await new Promise<number>((done, fail) => {
    const timer = setTimeout(() => fail(new Error("modern test server did not start")), 15_000);
    child.stderr?.on("data", (chunk: Buffer) => {
      const match = /listening (\d+)/.exec(chunk.toString());
      if (match) {
        clearTimeout(timer);
        done(Number(match[1]));
      }
    });
    child.once("exit", (code) => fail(new Error(`modern test server exited ${code}`)));
  });
  const stop = () =>
    new Promise<void>((done) => {
      if (child.exitCode !== null) return done();
      child.once("exit", () => done());
      child.kill("SIGTERM");
    });
  return { url: new URL(`http://127.0.0.1:${port}/mcp`), stop };
}

/** A tool registered after the catalog was read: its list_changed is recorded, then one refresh, then a fresh call. */
export async function expectRediscovery(receipt: Collector, client: Client) {
  const before = receipt.catalogState(client);
  const added = await receipt.callTool(client, { name: "add-tool", arguments: {}, deadlineMs: 5_000 });
  const [first] = (added.result?.content ?? []) as { text: string }[];
  const name = first?.text ?? "late-?";
  await expect.poll(() => receipt.catalogState(client).refreshes).toBe(before.refreshes + 1);
  const report = await receipt.callTool(client, {
    name,
    arguments: {},
    sideEffect: "none",
    deadlineMs: 5_000,
  });
  expect(report.record.call?.inCatalog).toBe(true);
  expect(report.record.catalog?.listChangedAt.length).toBe((before.catalog?.listChangedAt.length ?? 0) + 1);
  expectState(report.record, "unverified", "outcome.no_receipt");
}
