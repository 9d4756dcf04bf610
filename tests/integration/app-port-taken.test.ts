import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freePort } from "@/lib/server/db/embedded";
import { spawnNext } from "@/lib/server/next-server";
import { type RunningApp, startApp } from "../support/app-server";
import { createTestDatabase } from "../support/test-database";

// The harness's own promise: a port another test file took between freePort and the app's bind never makes a test
// talk to that other app. The first port handed out is one a stand-in for the other file's app already holds.
let taken = 0;
const handedOut: number[] = [];
const pickPort = async () => {
  const port = handedOut.length === 0 ? taken : await freePort();
  handedOut.push(port);
  return port;
};

let squatter: http.Server;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp | undefined;

beforeAll(async () => {
  // Answers every request healthy at once, as an app already running on that port would.
  squatter = http.createServer((_, response) =>
    response.writeHead(200, { "content-type": "application/json" }).end('{"squatter":true}'),
  );
  await new Promise<void>((resolve) => squatter.listen(0, "127.0.0.1", resolve));
  taken = (squatter.address() as AddressInfo).port;
  db = await createTestDatabase();
});
afterAll(async () => {
  await app?.stop();
  await new Promise((resolve) => squatter.close(resolve));
  await db?.drop();
});

it("an app whose port was taken meanwhile starts again on another, and its URL reaches it, not the other", async () => {
  app = await startApp(db.url, {}, 30_000, pickPort);
  expect(handedOut[0]).toBe(taken);
  expect(handedOut).toHaveLength(2);
  expect(new URL(app.baseUrl).port).toBe(String(handedOut[1]));
  const health = await fetch(`${app.baseUrl}/api/health`);
  expect(health.status).toBe(200);
  expect(await health.json()).not.toHaveProperty("squatter");
  expect(app.output()).toContain(`receipt app server) on http://127.0.0.1:${handedOut[1]}`);
});

it("the app server on a port another process holds exits 1 and says so, instead of running without a port", async () => {
  const child = spawnNext(["start", "--port", String(taken), "--hostname", "127.0.0.1"], {
    env: { ...process.env, DATABASE_URL: db.url, RECEIPT_DISABLE_WORKERS: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  // Next.js alone logs the error and runs on without a port: such a server is killed after 20 s, and the test fails.
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  const code = await exited.finally(() => clearTimeout(timer));
  expect(code, output).toBe(1);
  expect(output).toContain(`receipt: cannot listen on http://127.0.0.1:${taken}: listen EADDRINUSE`);
});
