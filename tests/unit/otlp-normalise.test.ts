import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/server/http/api-error";
import generatedRoot from "@opentelemetry/otlp-transformer/build/src/generated/root";
import { normaliseExport, normaliseExportInSteps } from "@/lib/server/otlp/normalise-spans";
import { decodeExportRequest, decodeExportRequestInSteps } from "@/lib/server/otlp/otlp-proto";
import { jsonBody, mcpSpan, protobufBody } from "@/tests/support/otlp-exports";

const TRACE = "0af7651916cd43dd8448eb211c80319c";
const SPAN = "b7ad6b7169203331";

/** An OTLP/JSON request holding one span, changed by `change`. */
function jsonRequest(change: (span: Record<string, unknown>) => void = () => {}) {
  const span: Record<string, unknown> = {
    traceId: TRACE.toUpperCase(),
    spanId: SPAN,
    parentSpanId: "",
    name: "tools/call echo",
    kind: 3,
    startTimeUnixNano: 1796032800000000000,
    endTimeUnixNano: "1796032800100000123",
    status: { code: 2, message: "failed" },
    attributes: [
      { key: "mcp.method.name", value: { stringValue: "tools/call" } },
      { key: "jsonrpc.request.id", value: { intValue: 7 } },
      { key: "big", value: { intValue: "9007199254740993" } },
      { key: "ratio", value: { doubleValue: 0.5 } },
      { key: "ok", value: { boolValue: true } },
      { key: "list", value: { arrayValue: { values: [{ stringValue: "a" }, { intValue: "2" }] } } },
      { key: "blob", value: { bytesValue: "AAEC" } },
      { key: "map", value: { kvlistValue: { values: [] } } },
    ],
    events: [{ name: "receipt.effect", timeUnixNano: "1796032800050000000", attributes: [] }],
  };
  change(span);
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: "service.name", value: { stringValue: "agent" } }] },
        scopeSpans: [{ scope: { name: "mcp", version: "1.0" }, spans: [span] }],
      },
    ],
  };
}

describe("normaliseExport (OTLP/JSON)", () => {
  it("reads hex ids, int64 as numbers or strings, enums as integers, and keeps nanoseconds exact", () => {
    const { spans, rejected } = normaliseExport(jsonRequest());
    expect(rejected).toEqual([]);
    expect(spans).toEqual([
      {
        traceId: TRACE,
        spanId: SPAN,
        name: "tools/call echo",
        kind: "client",
        startTimeUnixNano: "1796032800000000000",
        endTimeUnixNano: "1796032800100000123",
        status: { code: "error", message: "failed" },
        attributes: {
          "mcp.method.name": "tools/call",
          "jsonrpc.request.id": 7,
          big: "9007199254740993",
          ratio: 0.5,
          ok: true,
          list: ["a", 2],
        },
        events: [{ name: "receipt.effect", timeUnixNano: "1796032800050000000", attributes: {} }],
        resource: { "service.name": "agent" },
        scope: { name: "mcp", version: "1.0" },
      },
    ]);
  });

  it("accepts enums by their proto names", () => {
    const { spans } = normaliseExport(
      jsonRequest((span) => {
        span.kind = "SPAN_KIND_SERVER";
        span.status = { code: "STATUS_CODE_OK" };
      }),
    );
    expect(spans[0]?.kind).toBe("server");
    expect(spans[0]?.status).toEqual({ code: "ok" });
  });

  it.each([
    [
      "an intValue that is no integer",
      (s: Record<string, unknown>) => attr(s, { intValue: "abc" }),
      "invalid_attribute",
      ".attributes[8].value",
    ],
    [
      "a non-finite double",
      (s: Record<string, unknown>) => attr(s, { doubleValue: "NaN" }),
      "invalid_attribute",
      ".attributes[8].value",
    ],
    [
      "a stringValue that is a number",
      (s: Record<string, unknown>) => attr(s, { stringValue: 5 }),
      "invalid_attribute",
      ".attributes[8].value",
    ],
    [
      "a value that is no AnyValue",
      (s: Record<string, unknown>) => attr(s, 5),
      "invalid_attribute",
      ".attributes[8].value",
    ],
    [
      "a short trace id",
      (s: Record<string, unknown>) => {
        s.traceId = "abcd";
      },
      "invalid_id",
      ".traceId",
    ],
    [
      "an all-zero span id",
      (s: Record<string, unknown>) => {
        s.spanId = "0000000000000000";
      },
      "invalid_id",
      ".spanId",
    ],
    [
      "a time past uint64",
      (s: Record<string, unknown>) => {
        s.startTimeUnixNano = "18446744073709551616";
      },
      "invalid_time",
      ".startTimeUnixNano",
    ],
    [
      "an unknown kind",
      (s: Record<string, unknown>) => {
        s.kind = 9;
      },
      "invalid_enum",
      ".kind",
    ],
  ])("rejects the span alone for %s, at its JSON path", (_, change, code, suffix) => {
    const request = jsonRequest(change);
    const other = jsonRequest().resourceSpans[0]?.scopeSpans[0]?.spans[0] as Record<string, unknown>;
    request.resourceSpans[0]?.scopeSpans[0]?.spans.push({ ...other, spanId: "c7ad6b7169203331" });
    const { spans, rejected } = normaliseExport(request);
    expect(spans.map((span) => span.spanId)).toEqual(["c7ad6b7169203331"]);
    expect(rejected).toEqual([
      expect.objectContaining({ code, path: `$.resourceSpans[0].scopeSpans[0].spans[0]${suffix}` }),
    ]);
  });

  it("refuses an envelope that is not an ExportTraceServiceRequest with a 400", () => {
    for (const body of [
      [],
      "x",
      { resourceSpans: {} },
      { resourceSpans: [{ scopeSpans: [{ spans: 3 }] }] },
    ]) {
      expect(() => normaliseExport(body)).toThrow(ApiError);
    }
    expect(normaliseExport({})).toEqual({ spans: [], paths: [], rejected: [] });
  });
});

function attr(span: Record<string, unknown>, value: unknown) {
  (span.attributes as unknown[]).push({ key: "bad", value });
}

describe("normaliseExport (protobuf)", () => {
  it("gives the same spans for the SDK's protobuf and JSON serialisations", () => {
    const spans = [
      mcpSpan({ method: "initialize", session: "s1" }),
      mcpSpan({ method: "tools/call", tool: "echo", session: "s1", attributes: { n: 3, f: 1.5, b: false } }),
    ];
    const fromProtobuf = normaliseExport(decodeExportRequest(protobufBody(spans)));
    const fromJson = normaliseExport(JSON.parse(jsonBody(spans).toString()));
    expect(fromProtobuf.rejected).toEqual([]);
    expect(fromProtobuf.spans).toHaveLength(2);
    expect(fromProtobuf).toEqual(fromJson);
    expect(fromProtobuf.spans[1]?.attributes).toMatchObject({
      n: 3,
      f: 1.5,
      b: false,
      "gen_ai.tool.name": "echo",
    });
  });

  it("throws on bytes that are not protobuf", () => {
    expect(() => decodeExportRequest(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f]))).toThrow();
  });
});

describe("decoding and normalising in steps (the event loop runs between spans)", () => {
  type Message = { decode(bytes: Uint8Array): object; toObject(message: object, options: object): unknown };
  const wholeRequest = (
    generatedRoot as unknown as {
      opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: Message } } } } };
    }
  ).opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
  /** The generated code's decode of the whole request, without the schema URLs nothing reads. */
  const decodeWhole = (bytes: Uint8Array) =>
    JSON.parse(
      JSON.stringify(
        wholeRequest.toObject(wholeRequest.decode(bytes), { longs: String, enums: Number, arrays: true }),
        (key, value) => (key === "schemaUrl" ? undefined : value),
      ),
    );
  const spans = Array.from({ length: 7 }, (_, i) =>
    mcpSpan({
      method: i % 3 === 0 ? "tools/list" : "tools/call",
      tool: "echo",
      session: `s-${i % 2}`,
      error: i === 4,
    }),
  );

  it("gives what the generated code's decode of the whole request gives", () => {
    const body = protobufBody(spans);
    expect(JSON.parse(JSON.stringify(decodeExportRequest(body)))).toEqual(decodeWhole(body));
  });

  it("yields every so many spans and ends with the same export", async () => {
    const body = protobufBody(spans);
    let yields = 0;
    const yieldToEventLoop = async () => {
      yields++;
    };
    const decoded = await decodeExportRequestInSteps(body, yieldToEventLoop, 2);
    expect(yields).toBe(3);
    expect(decoded).toEqual(decodeExportRequest(body));
    yields = 0;
    const normalised = await normaliseExportInSteps(decoded, yieldToEventLoop, 2);
    expect(yields).toBe(3);
    expect(normalised).toEqual(normaliseExport(decoded));
    expect(normalised.spans).toHaveLength(7);
  });

  it("bytes that are not a request still fail to decode", async () => {
    const garbage = new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]);
    expect(() => decodeExportRequest(garbage)).toThrow();
    await expect(decodeExportRequestInSteps(garbage, async () => {}, 2)).rejects.toThrow();
  });
});
