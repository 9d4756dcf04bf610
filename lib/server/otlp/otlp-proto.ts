import generatedRoot from "@opentelemetry/otlp-transformer/build/src/generated/root";
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

/** Decodes protobuf bytes into the request's plain shape: ids as bytes, int64 as decimal strings, enums as numbers. */
export function decodeExportRequest(bytes: Uint8Array): Record<string, unknown> {
  const message = traceService.ExportTraceServiceRequest.decode(bytes);
  return traceService.ExportTraceServiceRequest.toObject(message, {
    longs: String,
    enums: Number,
    arrays: true,
  });
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
