import generatedRoot from "@opentelemetry/otlp-transformer/build/src/generated/root.js";
import protobuf from "protobufjs";

/**
 * The OTLP messages, from the protobufjs code OpenTelemetry generates from opentelemetry-proto and ships in
 * `@opentelemetry/otlp-transformer` (its last release that still carries the trace service: 0.216). Typed here by
 * hand because the package declares the generated root only as a `Root`.
 */
type GeneratedMessage = {
  decode(bytes: Uint8Array): object;
  toObject(message: object, options: protobuf.IConversionOptions): Record<string, unknown>;
  encode(message: object): protobuf.Writer;
};

type TraceService = {
  ExportTraceServiceRequest: GeneratedMessage;
  ExportTraceServiceResponse: GeneratedMessage;
};

const traceService = (
  generatedRoot as unknown as {
    opentelemetry: { proto: { collector: { trace: { v1: TraceService } } } };
  }
).opentelemetry.proto.collector.trace.v1;

const proto = (
  generatedRoot as unknown as {
    opentelemetry: {
      proto: {
        trace: { v1: { Span: GeneratedMessage } };
        resource: { v1: { Resource: GeneratedMessage } };
        common: { v1: { InstrumentationScope: GeneratedMessage } };
      };
    };
  }
).opentelemetry.proto;

const PLAIN: protobuf.IConversionOptions = { longs: String, enums: Number, arrays: true };

/** Decodes protobuf bytes into the request's plain shape: ids as bytes, int64 as decimal strings, enums as numbers. */
export function decodeExportRequest(bytes: Uint8Array): Record<string, unknown> {
  const steps = decodeSteps(bytes);
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
}

/**
 * `decodeExportRequest` that lets the event loop run every `spansBetweenYields` spans: decoding an export of
 * thousands of spans in one call held every other request for as long.
 */
export async function decodeExportRequestInSteps(
  bytes: Uint8Array,
  yieldToEventLoop: () => Promise<unknown>,
  spansBetweenYields: number,
): Promise<Record<string, unknown>> {
  const steps = decodeSteps(bytes);
  let step = steps.next();
  for (let spans = 1; !step.done; spans++) {
    if (spans % spansBetweenYields === 0) await yieldToEventLoop();
    step = steps.next();
  }
  return step.value;
}

// ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1 }, ResourceSpans { Resource resource = 1,
// repeated ScopeSpans scope_spans = 2 }, ScopeSpans { InstrumentationScope scope = 1, repeated Span spans = 2 }: walked
// field by field down to the spans, each span decoded by the generated code (the same plain shape as a whole decode,
// fields the normaliser does not read, such as schema_url, left out). Yields after each span.
function* decodeSteps(bytes: Uint8Array): Generator<void, Record<string, unknown>> {
  const resourceSpans: Record<string, unknown>[] = [];
  for (const [field, resource] of fieldsOf(bytes)) {
    if (field !== 1) continue;
    const entry: Record<string, unknown> = { scopeSpans: [] };
    for (const [resourceField, value] of fieldsOf(resource)) {
      if (resourceField === 1) entry.resource = plain(proto.resource.v1.Resource, value);
      if (resourceField !== 2) continue;
      const scopeEntry: Record<string, unknown> = { spans: [] };
      for (const [scopeField, scopeValue] of fieldsOf(value)) {
        if (scopeField === 1) scopeEntry.scope = plain(proto.common.v1.InstrumentationScope, scopeValue);
        if (scopeField !== 2) continue;
        (scopeEntry.spans as unknown[]).push(plain(proto.trace.v1.Span, scopeValue));
        yield;
      }
      (entry.scopeSpans as unknown[]).push(scopeEntry);
    }
    resourceSpans.push(entry);
  }
  return { resourceSpans };
}

const plain = (type: GeneratedMessage, bytes: Uint8Array) => type.toObject(type.decode(bytes), PLAIN);

/** The length-delimited fields of a message, as (field number, bytes); every other field is skipped. */
function* fieldsOf(bytes: Uint8Array): Generator<[number, Uint8Array]> {
  const reader = protobuf.Reader.create(bytes);
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if ((tag & 7) !== 2) {
      reader.skipType(tag & 7);
      continue;
    }
    yield [tag >>> 3, reader.bytes()];
  }
}

export type PartialSuccess = { rejectedSpans: number; errorMessage: string };

export function encodeExportResponse(partialSuccess: PartialSuccess | undefined): Uint8Array {
  return traceService.ExportTraceServiceResponse.encode(partialSuccess ? { partialSuccess } : {}).finish();
}

// google.rpc.Status (code, message), the body OTLP/HTTP gives every 4xx and 5xx. Its `details` (field 3, a list of
// Any) stay empty: Receipt's own error code travels in the `receipt-error-code` header.
const Status = new protobuf.Type("Status")
  .add(new protobuf.Field("code", 1, "int32"))
  .add(new protobuf.Field("message", 2, "string"));
new protobuf.Root().define("google.rpc").add(Status);

export function encodeStatus(code: number, message: string): Uint8Array {
  return Status.encode(Status.fromObject({ code, message })).finish();
}
