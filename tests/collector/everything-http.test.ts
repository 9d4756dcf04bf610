import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCollector, httpStatusVerifier, MemorySink } from "@/packages/collector/src";
import { expectState, expectValid, localHttp, sleep, startEverythingHttp } from "./helpers";

// server-everything over Streamable HTTP on 127.0.0.1 (PORT env, endpoint /mcp).
describe("server-everything over Streamable HTTP", () => {
  const sink = new MemorySink();
  const receipt = createCollector({
    sink,
    clientInfo: { name: "collector-test", version: "1.0.0" },
    requiredCapabilities: { server: ["tools"] },
    heartbeatMs: 0,
  });
  let server: Awaited<ReturnType<typeof startEverythingHttp>>;
  let client: Client;
  let destination: Awaited<ReturnType<typeof localHttp>>;

  beforeAll(async () => {
    server = await startEverythingHttp();
    client = await receipt.connect(receipt.streamableHttp(server.url));
    // A stand-in destination the outcome verifier reads back.
    destination = await localHttp((req, res) => res.writeHead(req.url === "/reports/42" ? 200 : 404).end());
  }, 30_000);
  afterAll(async () => {
    await client?.close();
    await destination?.close();
    await server?.stop();
  });

  it("records the HTTP session and a verified call → healthy (http_status)", async () => {
    const report = await receipt.callTool(client, {
      name: "echo",
      arguments: { message: "publish" },
      sideEffect: "write",
      deadlineMs: 5_000,
      verifyOutcome: httpStatusVerifier(`${destination.url}/reports/42`, { expect: 200 }),
    });
    expectValid(report.records);
    expect(report.record.session).toMatchObject({
      transport: "streamable-http",
      protocol: { acceptedVersion: "2025-11-25" },
    });
    expect(report.record.catalog).toMatchObject({ complete: true, pages: 1 });
    expect(report.record.call?.outcome).toMatchObject({
      verifier: "http_status",
      verdict: "pass",
      receipt: "HTTP 200",
    });
    expectState(report.record, "healthy", "outcome.verified");
  });

  it("the destination missing → false_success", async () => {
    const report = await receipt.callTool(client, {
      name: "echo",
      arguments: { message: "publish" },
      sideEffect: "write",
      deadlineMs: 5_000,
      verifyOutcome: httpStatusVerifier(`${destination.url}/reports/43`, { expect: 200 }),
    });
    expectState(report.record, "false_success", "outcome.verifier_failed");
  });

  it("progress over HTTP, observed mid-way → working; then finished", async () => {
    const running = receipt.callTool(client, {
      name: "trigger-long-running-operation",
      arguments: { duration: 1, steps: 4 },
      sideEffect: "none",
      deadlineMs: 10_000,
      inactivityMs: 1_000,
    });
    await sleep(600);
    const midway = sink.records
      .filter((record) => record.call?.tool === "trigger-long-running-operation")
      .at(-1);
    expectState(midway, "working", "request.in_flight");
    const report = await running;
    expectValid(report.records);
    expect(report.record.call?.progress.length).toBe(4);
  });
});
