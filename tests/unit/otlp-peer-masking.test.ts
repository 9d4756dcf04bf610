import { describe, expect, it } from "vitest";
import { classify } from "@/lib/classifier";
import { validateRecord } from "@/lib/contract";
import { buildRecords, type OtlpSpan, redactSpan } from "@/lib/otlp";
import { SAMPLES } from "@/tests/support/secret-samples";
import {
  FULL_RECEIPT,
  PASSING_OUTCOME,
  semconvCall,
  semconvSession,
  traceloopCall,
  traceloopSession,
} from "@/tests/support/otlp-spans";

// Issue 43 §4: a peer's name or version that looks like a credential or holds a control character costs that one
// field (dropped at redaction, named in `receipt.masked`, reported `masked_attribute`), never the span or session.

const TOKEN = SAMPLES.github_token[0] as string;
const BAD_VALUES = { token: TOKEN, nul: "2.3.1\u0000", escape: "\u001b[31m2.3.1", del: "2.3\u007f" };

function onlyCall(spans: OtlpSpan[]) {
  const { records, problems } = buildRecords(spans);
  const calls = records.filter((record) => (record as { call?: unknown }).call !== undefined);
  expect(calls).toHaveLength(1);
  const validation = validateRecord(calls[0]);
  if (!validation.ok) throw new Error(`record refused: ${JSON.stringify(validation.issues)}`);
  return { record: validation.record, state: classify(validation.record).state, problems };
}

describe("a peer's name or version that cannot be kept", () => {
  for (const [kind, value] of Object.entries(BAD_VALUES)) {
    it(`receipt.server.version (${kind}) is dropped alone: the chain is classified as it would be without it`, () => {
      const call = semconvCall({
        attributes: { ...FULL_RECEIPT, "receipt.server.version": value },
        events: PASSING_OUTCOME,
      });
      const { record, state, problems } = onlyCall([...semconvSession(), call]);
      expect(state).toBe("healthy");
      expect(record.session.server).toEqual({ name: "weather-mcp", version: "unknown" });
      expect(record.call?.operationKey).toBe("op:weather-report-42");
      expect(JSON.stringify(record)).not.toContain(value);
      expect(problems).toEqual([
        {
          traceId: call.traceId,
          spanId: call.spanId,
          code: "masked_attribute",
          message:
            "receipt.server.version dropped: the value looked like a credential or held a control character; the span is kept without it",
        },
      ]);
      const redacted = redactSpan(call);
      expect(redacted.attributes["receipt.masked"]).toEqual(["receipt.server.version"]);
      expect(redactSpan(redacted)).toEqual(redacted);
    });
  }

  it("on the handshake span, the session keeps its handshake and the server its name", () => {
    const [initialize, ...rest] = semconvSession();
    const handshake = {
      ...(initialize as OtlpSpan),
      attributes: {
        ...(initialize as OtlpSpan).attributes,
        "receipt.server.name": "long-ops",
        "receipt.server.version": "\u0000",
      },
    };
    const call = semconvCall({ attributes: { "receipt.call.side_effect": "none" } });
    const { record, state, problems } = onlyCall([handshake, ...rest, call]);
    expect(record.session.server).toEqual({ name: "long-ops", version: "unknown" });
    expect(record.session.protocol.acceptedVersion).toBe("2025-06-18");
    expect(state).not.toBe("incompatible_session");
    expect(problems.map((problem) => [problem.spanId, problem.code])).toEqual([
      [handshake.spanId, "masked_attribute"],
    ]);
  });

  it("client name and version, from receipt.client.* or the resource, fall back field by field", () => {
    const call = semconvCall({
      attributes: {
        ...FULL_RECEIPT,
        "receipt.client.name": "weather-agent",
        "receipt.client.version": TOKEN,
      },
      events: PASSING_OUTCOME,
    });
    call.resource = { "service.name": "svc\u0007", "service.version": "1.4.0" };
    const { record, state, problems } = onlyCall([...semconvSession(), call]);
    expect(state).toBe("healthy");
    // receipt.client.version dropped: the resource's service.version stands in; the resource's name was masked too.
    expect(record.session.client).toEqual({ name: "weather-agent", version: "1.4.0" });
    expect(redactSpan(call).attributes["receipt.masked"]).toEqual(["receipt.client.version", "service.name"]);
    expect(redactSpan(call).resource["service.name"]).toBeUndefined();
    expect(problems.map((problem) => problem.message)).toEqual([
      "receipt.client.version, service.name dropped: the value looked like a credential or held a control character; the span is kept without it",
    ]);
  });

  it("traceloop's serverInfo with a NUL version keeps the server's name and the handshake", () => {
    const { session, spans } = traceloopSession();
    const initialize = spans[1] as OtlpSpan;
    const output = JSON.parse(initialize.attributes["traceloop.entity.output"] as string);
    output.serverInfo.version = "2.0.0\u0000";
    initialize.attributes = { ...initialize.attributes, "traceloop.entity.output": JSON.stringify(output) };
    const { record, state, problems } = onlyCall([...spans, traceloopCall(session)]);
    expect(record.session.server).toEqual({ name: "mcp-servers/everything", version: "unknown" });
    expect(record.session.protocol.acceptedVersion).toBe("2025-11-25");
    expect(state).toBe("unverified");
    expect(problems.map((problem) => [problem.spanId, problem.code])).toEqual([
      [initialize.spanId, "masked_attribute"],
    ]);
  });

  it("a value that is fine is kept as sent", () => {
    const call = semconvCall({ attributes: { "receipt.server.version": "2.3.1-beta+build.7" } });
    expect(redactSpan(call).attributes["receipt.masked"]).toBeUndefined();
    expect(onlyCall([...semconvSession(), call]).record.session.server?.version).toBe("2.3.1-beta+build.7");
  });
});

describe("a protocol version that cannot be kept (issue 43 §4)", () => {
  for (const [kind, value] of Object.entries(BAD_VALUES)) {
    it(`mcp.protocol.version (${kind}) on the handshake is dropped alone: the handshake and its session stand`, () => {
      const [initialize, ...rest] = semconvSession();
      const handshake: OtlpSpan = {
        ...(initialize as OtlpSpan),
        attributes: {
          ...(initialize as OtlpSpan).attributes,
          "mcp.protocol.version": value,
          "receipt.protocol.accepted_version": value,
        },
      };
      const call = semconvCall({ attributes: FULL_RECEIPT, events: PASSING_OUTCOME });
      const { record, state, problems } = onlyCall([handshake, ...rest, call]);
      expect(state).toBe("healthy");
      expect(record.session.server).toEqual({ name: "weather-mcp", version: "2.3.1" });
      expect(record.session.protocol.acceptedVersion).toBe("2025-06-18");
      expect(record.session.protocol.initializedAt).toBeDefined();
      expect(JSON.stringify(record)).not.toContain(value);
      expect(problems.map((problem) => [problem.spanId, problem.code])).toEqual([
        [handshake.spanId, "masked_attribute"],
      ]);
      expect(redactSpan(handshake).attributes["receipt.masked"]).toEqual([
        "mcp.protocol.version",
        "receipt.protocol.accepted_version",
      ]);
    });
  }
});

it("a supported-versions list with a token-like entry is dropped as a whole, the span kept", () => {
  const call = semconvCall({
    attributes: {
      ...FULL_RECEIPT,
      "receipt.protocol.client_supported_versions": ["2025-06-18", TOKEN],
    },
    events: PASSING_OUTCOME,
  });
  const { record, state, problems } = onlyCall([...semconvSession(), call]);
  expect(state).toBe("healthy");
  expect(record.session.protocol.clientSupportedVersions).toEqual(["2025-06-18"]);
  expect(JSON.stringify(record)).not.toContain(TOKEN);
  expect(problems.map((problem) => problem.code)).toEqual(["masked_attribute"]);
  expect(redactSpan(call).attributes["receipt.masked"]).toEqual([
    "receipt.protocol.client_supported_versions",
  ]);
});

describe("a peer's name or version past the record's length (issue 43 §4)", () => {
  for (const length of [129, 600]) {
    it(`a server name of ${length} characters is cut to 128 and said so, not ignored`, () => {
      const call = semconvCall({
        attributes: { ...FULL_RECEIPT, "receipt.server.name": "s".repeat(length) },
        events: PASSING_OUTCOME,
      });
      const { record, state, problems } = onlyCall([...semconvSession(), call]);
      expect(state).toBe("healthy");
      expect(record.session.server).toEqual({ name: "s".repeat(128), version: "2.3.1" });
      expect(problems).toEqual([
        {
          traceId: call.traceId,
          spanId: call.spanId,
          code: "masked_attribute",
          message:
            "receipt.server.name cut to the record's length (names 128 characters, versions 64); the span is kept with the rest",
        },
      ]);
      const redacted = redactSpan(call);
      expect(redacted.attributes["receipt.truncated"]).toEqual(["receipt.server.name"]);
      expect(redactSpan(redacted)).toEqual(redacted);
    });
  }

  it("a version cut at 64 never keeps half of an emoji; a client name on the resource is cut too", () => {
    const call = semconvCall({
      attributes: { ...FULL_RECEIPT, "receipt.server.version": `${"v".repeat(63)}😀` },
      events: PASSING_OUTCOME,
    });
    call.resource = { "service.name": "c".repeat(700), "service.version": "1.4.0" };
    const { record } = onlyCall([...semconvSession(), call]);
    expect(record.session.server?.version).toBe("v".repeat(63));
    expect(record.session.client).toEqual({ name: "c".repeat(128), version: "1.4.0" });
    expect(redactSpan(call).attributes["receipt.truncated"]).toEqual([
      "receipt.server.version",
      "service.name",
    ]);
  });
});
