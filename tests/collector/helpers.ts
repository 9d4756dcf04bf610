import { spawn, type ChildProcess } from "node:child_process";
import { resolve } from "node:path";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { expect } from "vitest";
import { classify } from "@/lib/classifier";
import { validateRecord } from "@/lib/contract";
import type { CollectorRecord } from "@/packages/collector/src";
import { portOutsideEphemeralRange } from "../support/ports";

export const EVERYTHING_BIN = resolve("node_modules/.bin/mcp-server-everything");
export const FILESYSTEM_BIN = resolve("node_modules/.bin/mcp-server-filesystem");
export const FIXTURE_SERVER = resolve("tests/collector/servers/fixture-server.ts");

export function stdio(
  command: string,
  args: string[] = [],
  env: Record<string, string> = {},
): StdioClientTransport {
  return new StdioClientTransport({
    command,
    args,
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: "ignore",
  });
}

/** Our own SDK-built test server, run from TypeScript source through tsx. */
export function fixtureServer(env: Record<string, string> = {}): StdioClientTransport {
  return stdio(process.execPath, ["--import", "tsx", FIXTURE_SERVER], env);
}

/** server-everything over Streamable HTTP on 127.0.0.1:PORT/mcp; resolves once it listens. */
export async function startEverythingHttp(): Promise<{
  url: URL;
  child: ChildProcess;
  stop: () => Promise<void>;
}> {
  const port = await portOutsideEphemeralRange();
  const child = spawn(EVERYTHING_BIN, ["streamableHttp"], {
    // The package has no host option (it listens on every interface); the tests only ever dial 127.0.0.1.
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((done, fail) => {
    const timer = setTimeout(() => fail(new Error("server-everything did not start")), 15_000);
    child.stderr?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("listening")) {
        clearTimeout(timer);
        done();
      }
    });
    child.once("exit", (code) => fail(new Error(`server-everything exited ${code}`)));
  });
  const stop = () =>
    new Promise<void>((done) => {
      if (child.exitCode !== null) return done();
      child.once("exit", () => done());
      child.kill("SIGTERM");
    });
  return { url: new URL(`http://127.0.0.1:${port}/mcp`), child, stop };
}

/** Every record the collector produces must pass the contract's strict validator. */
export function expectValid(records: readonly CollectorRecord[]): void {
  for (const record of records) {
    const result = validateRecord(record);
    expect(result.ok ? [] : result.issues, `record ${record.recordId}`).toEqual([]);
  }
}

/** Validates the record and asserts both the state and the deciding reason. */
export function expectState(record: CollectorRecord | undefined, state: string, reason: string) {
  expect(record).toBeDefined();
  const valid = validateRecord(record);
  expect(valid.ok ? [] : valid.issues).toEqual([]);
  const verdict = classify(record as CollectorRecord);
  expect({ state: verdict.state, reason: verdict.reasons[0] }).toEqual({ state, reason });
  return verdict;
}

export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** A throwaway node:http server on 127.0.0.1; resolves with its base URL. */
export async function localHttp(
  handler: (
    req: import("node:http").IncomingMessage,
    res: import("node:http").ServerResponse,
    body: string,
  ) => void,
): Promise<{ url: string; close: () => Promise<void> }> {
  const { createServer: createHttpServer } = await import("node:http");
  const server = createHttpServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on("end", () => handler(req, res, body));
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
