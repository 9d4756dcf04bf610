import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validateRecord } from "@/lib/contract";
import { buildRecords, type OtlpSpan, redactSpan } from "@/lib/otlp";
import { SAMPLES } from "../support/secret-samples";
import {
  PASSING_OUTCOME,
  semconvCall,
  semconvSession,
  span,
  traceloopCall,
  traceloopSession,
} from "../support/otlp-spans";

const SECRETS = Object.values(SAMPLES).flat();
const marker = (what: string) => `CONTENT-${what}-must-not-be-kept`;

/** Every kind of content an instrumentation may put on a span, each value unique so it can be looked for. */
function contentLadenSpans(): { spans: OtlpSpan[]; forbidden: string[] } {
  const forbidden: string[] = [];
  const value = (what: string, index = 0) => {
    const text = `${marker(what)} ${SECRETS[index % SECRETS.length]}`;
    forbidden.push(text, marker(what));
    return text;
  };
  const call = semconvCall({
    status: "error",
    attributes: {
      "error.type": "tool_error",
      "gen_ai.tool.call.arguments": value("arguments", 0),
      "gen_ai.tool.call.result": value("result", 1),
      "gen_ai.prompt": value("prompt", 2),
      "gen_ai.completion": value("completion", 3),
      "gen_ai.input.messages": value("input-messages", 4),
      "gen_ai.output.messages": value("output-messages", 5),
      "gen_ai.system_instructions": value("system", 6),
      "input.value": value("input.value", 7),
      "output.value": value("output.value", 8),
      "llm.input_messages.0.message.content": value("message-content", 9),
      "tool.parameters": value("tool-parameters", 10),
      "mcp.resource.uri": value("resource-uri", 11),
      "http.request.header.authorization": value("auth-header", 12),
      "custom.business.field": value("unknown", 13),
      "receipt.call.unknown_field": value("unknown-receipt", 14),
      "mcp.session.id": value("session-id", 15),
      "error.message": value("error-message", 16),
    },
    events: [
      ...PASSING_OUTCOME,
      { name: "gen_ai.content.prompt", at: 101, attributes: { "gen_ai.prompt": value("prompt-event", 17) } },
      { name: "gen_ai.choice", at: 149, attributes: { message: value("choice-event", 18) } },
      {
        name: "exception",
        at: 150,
        attributes: {
          "exception.type": value("exception-type", 19),
          "exception.message": value("exception-message", 20),
          "exception.stacktrace": value("stacktrace", 21),
        },
      },
    ],
  });
  call.status.message = value("status-message", 22);
  call.resource = {
    "service.name": "weather-agent",
    "process.command_line": value("command-line", 23),
    "host.name": value("host", 24),
  };
  const http = span({
    name: value("http-span-name", 25),
    kind: "client",
    start: 120,
    attributes: { "url.full": value("url", 26) },
  });
  const { session, spans: traceloop } = traceloopSession({ tools: [value("tool-name", 27)] });
  const traceloopTool = traceloopCall(session, { arguments: { secret: value("traceloop-arguments", 28) } });
  return { spans: [...semconvSession(), call, http, ...traceloop, traceloopTool], forbidden };
}

describe("OTLP redaction", () => {
  it("no argument, result, prompt, message, unknown attribute or status message survives redactSpan or buildRecords", () => {
    const { spans, forbidden } = contentLadenSpans();
    const redacted = JSON.stringify(spans.map(redactSpan));
    const { records } = buildRecords(spans);
    expect(records.length).toBeGreaterThan(0);
    const built = JSON.stringify(buildRecords(spans));
    for (const text of forbidden) {
      expect(redacted).not.toContain(text);
      expect(built).not.toContain(text);
    }
    for (const secret of SECRETS) {
      expect(redacted).not.toContain(secret);
      expect(built).not.toContain(secret);
    }
  });

  it("an unknown attribute never survives, whatever its name and value", () => {
    const known =
      /^(mcp\.|gen_ai\.(operation|tool\.name)|jsonrpc\.request\.id|rpc\.|error\.type|network\.|server\.|receipt\.|traceloop\.)/;
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.string({ minLength: 1, maxLength: 30 }).filter((key) => !known.test(key)),
          fc.string({ minLength: 12, maxLength: 40 }).map((text) => `UNIQUE${text}`),
        ),
        (attributes) => {
          const call = semconvCall({ attributes });
          const out = JSON.stringify([redactSpan(call), buildRecords([...semconvSession(), call])]);
          for (const text of Object.values(attributes)) expect(out).not.toContain(text);
        },
      ),
      { numRuns: 100 },
    );
  }, 30_000);

  it("kept values that look like credentials reach only record fields the secret guard scans", () => {
    const bearer = SAMPLES.bearer_token[0] as string;
    const call = semconvCall({
      attributes: { "receipt.server.name": bearer, "receipt.label.team": SAMPLES.github_token[0] as string },
      events: [
        {
          name: "receipt.outcome",
          at: 170,
          attributes: {
            "receipt.outcome.verdict": "pass",
            "receipt.outcome.receipt": SAMPLES.jwt[0] as string,
          },
        },
      ],
    });
    const [record] = buildRecords([...semconvSession(), call]).records;
    const validation = validateRecord(record);
    expect(validation.ok).toBe(false);
    if (validation.ok) return;
    expect(validation.code).toBe("secret_detected");
    // A peer's name or version is masked at redaction instead (issue 43 §4): that field only, said so.
    expect(validation.issues.map((issue) => issue.path).sort()).toEqual([
      "$.call.outcome.receipt",
      "$.labels.team",
    ]);
    expect(JSON.stringify(record)).not.toContain(bearer);
    expect(redactSpan(call).attributes["receipt.masked"]).toEqual(["receipt.server.name"]);
  });

  it("mcp.session.id is stored only as its hash", () => {
    const sessionId = "c2Vzc2lvbi1zZWNyZXQtdmFsdWU";
    const redacted = redactSpan(semconvCall({ sessionId }));
    expect(redacted.attributes["mcp.session.id"]).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(JSON.stringify(redacted)).not.toContain(sessionId);
  });

  it("redactSpan is idempotent on any attributes and events, known names or not", () => {
    const keys = fc.constantFrom(
      "mcp.method.name",
      "mcp.session.id",
      "error.type",
      "gen_ai.tool.name",
      "traceloop.span.kind",
      "traceloop.entity.name",
      "traceloop.entity.input",
      "traceloop.entity.output",
      "receipt.catalog.tool_names",
      "receipt.call.side_effect",
      "receipt.label.team",
      "http.response.status_code",
      "input.value",
    );
    const value = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constantFrom("tool", "tools/call", "-32602", "401", "tool_error", '{"tools":[{"name":"a"}]}'),
      fc.integer(),
      fc.boolean(),
      fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
    );
    const attributes = fc.dictionary(keys, value);
    const event = fc.record({
      name: fc.constantFrom("exception", "receipt.outcome", "receipt.auth.challenge", "gen_ai.choice"),
      at: fc.nat(1000),
      attributes: fc.dictionary(
        fc.constantFrom(
          "exception.type",
          "exception.message",
          "receipt.outcome.verdict",
          "receipt.auth.status",
          "x",
        ),
        value,
      ),
    });
    fc.assert(
      fc.property(
        fc.constantFrom("tools/call x", "initialize.mcp", "x.tool", "GET"),
        attributes,
        fc.array(event, { maxLength: 3 }),
        (name, attrs, events) => {
          const once = redactSpan(span({ name, start: 0, attributes: attrs, events }));
          expect(redactSpan(once)).toEqual(once);
        },
      ),
      { numRuns: 300 },
    );
  }, 30_000);
});
