import type { SpanRejection } from "./normalise-spans";
import { encodeExportResponse, encodeStatus, type PartialSuccess } from "./otlp-proto";
import { encodingOf, type OtlpEncoding } from "./read-export";

/** Header naming Receipt's machine-readable error code on OTLP error answers (the body is a google.rpc.Status). */
export const ERROR_CODE_HEADER = "receipt-error-code";

const MESSAGE_REJECTIONS = 10;

/**
 * The success answer: 200 with an ExportTraceServiceResponse in the request's encoding, with `partialSuccess` when
 * spans were rejected (their count, and what was wrong with the first ten, each by code, JSON path and ids).
 */
export function exportResponse(encoding: OtlpEncoding, rejected: SpanRejection[]): Response {
  const partialSuccess: PartialSuccess | undefined =
    rejected.length === 0 ? undefined : { rejectedSpans: rejected.length, errorMessage: summary(rejected) };
  if (encoding === "protobuf") {
    return new Response(Buffer.from(encodeExportResponse(partialSuccess)), {
      headers: { "content-type": "application/x-protobuf" },
    });
  }
  // OTLP/JSON follows the proto3 JSON mapping: an int64 is a decimal string.
  return Response.json(
    partialSuccess
      ? { partialSuccess: { ...partialSuccess, rejectedSpans: String(partialSuccess.rejectedSpans) } }
      : {},
  );
}

function summary(rejected: SpanRejection[]): string {
  const lines = rejected.slice(0, MESSAGE_REJECTIONS).map((item) => {
    const ids = item.traceId ? ` (span ${item.traceId}/${item.spanId ?? "?"})` : "";
    return `${item.code} at ${item.path}${ids}: ${item.message}`;
  });
  const more = rejected.length - lines.length;
  return `${rejected.length} span(s) rejected: ${lines.join("; ")}${more > 0 ? `; and ${more} more` : ""}`;
}

// The gRPC code a google.rpc.Status carries for each HTTP status Receipt answers with.
const GRPC_CODE: Record<number, number> = {
  400: 3,
  401: 16,
  403: 7,
  405: 12,
  409: 10,
  413: 8,
  415: 3,
  422: 3,
  503: 14,
};
const GRPC_INTERNAL = 13;

/**
 * Re-encodes an error answer of `apiRoute` (`{ error: { code, message, issues } }`) as OTLP/HTTP wants it: a
 * google.rpc.Status in the request's encoding. As JSON the Status's `code` and `message` sit beside Receipt's own
 * `error` object; as protobuf Receipt's code travels in the `receipt-error-code` header. Status, Retry-After and
 * the other headers are kept. A request in neither encoding (415) keeps Receipt's JSON error.
 */
export async function asOtlpError(request: Request, response: Response): Promise<Response> {
  const encoding = encodingOf(request);
  if (response.status < 400 || encoding === undefined) return response;
  const { error } = (await response.json()) as { error: { code: string; message: string } };
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  headers.set(ERROR_CODE_HEADER, error.code);
  const code = GRPC_CODE[response.status] ?? GRPC_INTERNAL;
  if (encoding === "protobuf") {
    headers.set("content-type", "application/x-protobuf");
    return new Response(Buffer.from(encodeStatus(code, `${error.code}: ${error.message}`)), {
      status: response.status,
      headers,
    });
  }
  headers.set("content-type", "application/json");
  return new Response(JSON.stringify({ code, message: error.message, details: [], error }), {
    status: response.status,
    headers,
  });
}
