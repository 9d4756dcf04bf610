import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { AGENT_TEST_TIMEOUT, expectAcceptedExports, runAgent } from "@/tests/support/otlp-agent";
import { receiptForThisFile, verdict } from "@/tests/support/otlp-receipt";

// How real exporters deliver: configured by the standard environment variables, many exports in flight at once,
// every export sent twice. A real agent process against a running Receipt, as in otlp-instrumentations.test.ts.

const receipt = receiptForThisFile();

describe("concurrent exports", () => {
  it("many calls whose spans are exported concurrently, one per export: every chain ends healthy", {
    timeout: AGENT_TEST_TIMEOUT,
  }, async () => {
    const id = receipt.runId("conventions-concurrent");
    const count = 6;
    const report = await receipt.agent({
      exporter: "proto",
      transport: "stdio",
      instrumentation: "conventions",
      processor: "simple",
      receiptSession: true,
      runId: id,
      calls: Array.from({ length: count }, (_, i) => ({
        tool: "echo",
        arguments: { message: `${receipt.marker}-${i}` },
        receipt: { "receipt.call.side_effect": "none" },
        outcome: { verifier: "test", verdict: "pass" as const },
      })),
    });
    expectAcceptedExports(report);
    const calls = (await receipt.allChains(id)).filter((chain) => chain.tool === "echo");
    expect(calls.map((chain) => [chain.state, chain.reasons[0], chain.evidence])).toEqual(
      Array.from({ length: count }, () => ["healthy", "outcome.verified", "strong"]),
    );
  });
});

describe("zero-code configuration", () => {
  it("an exporter configured only by OTEL_EXPORTER_OTLP_ENDPOINT and _HEADERS reaches Receipt", {
    timeout: AGENT_TEST_TIMEOUT,
  }, async () => {
    const id = receipt.runId("env");
    const report = await runAgent(
      {
        endpoint: "unused",
        key: "unused",
        exporter: "proto",
        transport: "stdio",
        instrumentation: "traceloop",
        configuredByEnvironment: true,
        runId: id,
        calls: [{ tool: "echo", arguments: { message: receipt.marker } }],
      },
      {
        // The base URL: the exporter appends /v1/traces. A header value's space is percent-encoded (W3C baggage format).
        OTEL_EXPORTER_OTLP_ENDPOINT: receipt.baseUrl,
        OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer%20${receipt.key}`,
      },
    );
    expectAcceptedExports(report);
    expect([...(await receipt.chains(id)).keys()]).toEqual(["echo"]);
  });
});

describe("duplicates", () => {
  it("an exporter that sends every export twice stores each span once and each record once", {
    timeout: AGENT_TEST_TIMEOUT,
  }, async () => {
    const id = receipt.runId("duplicates");
    const report = await receipt.agent({
      exporter: "proto",
      transport: "stdio",
      instrumentation: "conventions",
      processor: "simple",
      duplicateExports: true,
      runId: id,
      calls: [{ tool: "echo", arguments: { message: receipt.marker } }],
    });
    expectAcceptedExports(report);
    const spansSent = report.exports.reduce((sum, e) => sum + e.spans, 0) / 2;
    expect(report.exports.length % 2).toBe(0);
    // The resource's service.name (the run id) is kept on every stored span.
    expect((await receipt.rowsContaining(id))["public.otlp_spans"]).toBe(spansSent);
    const echo = (await receipt.chains(id)).get("echo") ?? fail();
    expect(verdict(echo)).toEqual({ state: "unverified", reasons: ["outcome.no_receipt"] });
    expect(echo.recordCount).toBe(1);
  });
});

describe("the secret guard", () => {
  it("a kept attribute holding a credential: the exporter is told of rejected spans, and nothing holds it", {
    timeout: AGENT_TEST_TIMEOUT,
  }, async () => {
    const id = receipt.runId("secret");
    // A GitHub token's shape, made at run time (the repository holds no credential-looking string).
    const token = ["ghp", "_", randomBytes(18).toString("hex")].join("");
    const report = await receipt.agent({
      exporter: "json",
      transport: "stdio",
      instrumentation: "conventions",
      runId: id,
      calls: [
        {
          tool: "echo",
          arguments: { message: receipt.marker },
          outcome: { verifier: "test", verdict: "pass", receipt: token },
        },
      ],
    });
    expect(report.exports.filter((e) => e.code !== 0)).toEqual([]);
    const partial = report.warnings.find((w) => w.includes("Partial Success"));
    expect(partial, "the SDK logged the partial success").toBeDefined();
    expect(partial).toMatch(/"rejectedSpans":"?[1-9]/);
    expect(partial).not.toContain(token);
    expect(await receipt.rowsContaining(token)).toEqual({});
  });
});

describe("redaction", () => {
  it("stores no argument value anywhere: every table of the database, and the server's output", async () => {
    await receipt.expectMarkerStoredNowhere(4);
  });
});

function fail(): never {
  throw new Error("chain missing");
}
