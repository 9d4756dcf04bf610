// The MCP client under test for @modelcontextprotocol/conformance's client scenarios. The CLI runs
// it with the scenario server's URL as last argument and MCP_CONFORMANCE_SCENARIO set. The same
// agent runs bare (RECEIPT_CONFORMANCE_MODE=bare) or wrapped by the collector (=wrapped); it writes
// what it sent and, wrapped, what the collector recorded to RECEIPT_CONFORMANCE_OUT.
import { writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  type CollectorRecord,
  createCollector,
  MemorySink,
  SessionFailedError,
} from "../../../packages/collector/src";

/** The tool each scenario's server offers, with arguments and, where the answer is known, a check. */
const CALLS: Record<string, { name: string; arguments: Record<string, unknown>; expectText?: string }> = {
  tools_call: { name: "add_numbers", arguments: { a: 5, b: 3 }, expectText: "8" },
  "elicitation-sep1034-client-defaults": { name: "test_client_elicitation_defaults", arguments: {} },
  "sse-retry": { name: "test_reconnection", arguments: {} },
};

const url = process.argv.at(-1) ?? "";
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const wrapped = process.env.RECEIPT_CONFORMANCE_MODE === "wrapped";
const out = process.env.RECEIPT_CONFORMANCE_OUT ?? "";

const sent: unknown[] = [];
const transport = new StreamableHTTPClientTransport(new URL(url));
const send = transport.send.bind(transport);
transport.send = (message, options) => {
  sent.push(structuredClone(message));
  return send(message, options);
};

const client = new Client(
  { name: "conformance-agent", version: "1.0.0" },
  { capabilities: { elicitation: {} } },
);
// SEP-1034: accept, filling every field the server gave a default for.
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  const properties = (
    request.params as { requestedSchema?: { properties?: Record<string, { default?: unknown }> } }
  ).requestedSchema?.properties;
  const content = Object.fromEntries(
    Object.entries(properties ?? {})
      .filter(([, field]) => field.default !== undefined)
      .map(([name, field]) => [name, field.default]),
  );
  return { action: "accept", content } as never;
});

const sink = new MemorySink();
const receipt = createCollector({
  sink,
  clientInfo: { name: "conformance-agent", version: "1.0.0" },
  heartbeatMs: 0,
  connectTimeoutMs: 10_000,
});
const call = CALLS[scenario];
let error: string | undefined;
let catalogToolCount: number | undefined;
try {
  if (wrapped) {
    await receipt.connect(transport, { client });
    catalogToolCount = receipt.catalogState(client).catalog?.toolCount;
    if (call)
      await receipt.callTool(client, {
        name: call.name,
        arguments: call.arguments,
        sideEffect: "none",
        deadlineMs: 20_000,
        ...(call.expectText && {
          verifyOutcome: {
            kind: "test",
            verify: ({ result }) => ({
              verdict: JSON.stringify(result?.content ?? []).includes(call.expectText ?? "")
                ? "pass"
                : "fail",
            }),
          },
        }),
      });
  } else {
    await client.connect(transport, { timeout: 10_000 });
    if (client.getServerCapabilities()?.tools) await client.listTools();
    if (call)
      await client.callTool({ name: call.name, arguments: call.arguments }, undefined, { timeout: 20_000 });
  }
} catch (failure) {
  error = failure instanceof SessionFailedError ? "SessionFailedError" : String(failure);
}
await client.close().catch(() => undefined);

const latest = new Map<string, CollectorRecord>();
for (const record of sink.records) latest.set(record.chainId, record);
const states = [...latest.values()].map((record) => {
  const verdict = receipt.classify(record);
  return {
    chainId: record.chainId,
    state: verdict.state,
    reason: verdict.reasons[0],
    evidence: verdict.evidence,
  };
});
if (out) writeFileSync(out, JSON.stringify({ scenario, wrapped, sent, states, catalogToolCount, error }));
process.exit(0);
