import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { ApiError } from "../http/api-error";
import { JsonTooDeepError, parseJsonInSteps } from "../http/json-in-steps";
import { readBodyLimited } from "../http/read-body";
import { decodeExportRequestInSteps } from "./otlp-proto";
import { type NormalisedExport, normaliseExportInSteps } from "./normalise-spans";

/** The two OTLP/HTTP encodings; the answer, errors included, uses the request's. */
export type OtlpEncoding = "protobuf" | "json";

/** The native body limit, applied to the body as received and again after gzip is inflated. */
export const MAX_EXPORT_BYTES = 5 * 1024 * 1024;

export function encodingOf(request: Request): OtlpEncoding | undefined {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type === "application/x-protobuf") return "protobuf";
  if (type === "application/json") return "json";
  return undefined;
}

/** Reads and decodes `POST /v1/traces`: 415 for another type or encoding, 413 past 5 MiB, 400 if undecodable. */
export async function readExport(request: Request): Promise<NormalisedExport> {
  const encoding = encodingOf(request);
  if (encoding === undefined) {
    throw new ApiError(
      415,
      "unsupported_media_type",
      "Content-Type must be application/x-protobuf or application/json",
    );
  }
  const contentEncoding = (request.headers.get("content-encoding") ?? "identity").trim().toLowerCase();
  if (contentEncoding !== "identity" && contentEncoding !== "gzip") {
    throw new ApiError(415, "unsupported_content_encoding", "Content-Encoding must be gzip or identity");
  }
  const received = await readBodyLimited(request, MAX_EXPORT_BYTES, tooLarge);
  const body = contentEncoding === "gzip" ? await inflate(received) : received;
  return encoding === "protobuf" ? decodeProtobuf(body) : decodeJson(body);
}

const gunzipAsync = promisify(gunzip);

/**
 * zlib stops inflating at `maxOutputLength`, so a gzip bomb costs at most the limit in memory, never more. Inflated
 * on libuv's thread pool: inflating 4 MiB of JSON held the event loop for 60 ms.
 */
async function inflate(compressed: Buffer): Promise<Buffer> {
  try {
    return await gunzipAsync(compressed, { maxOutputLength: MAX_EXPORT_BYTES });
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge();
    throw undecodable("invalid_gzip", "the body is not valid gzip");
  }
}

/** Spans decoded or normalised between two turns of the event loop: an export of thousands would hold it. */
const SPANS_BETWEEN_YIELDS = 100;

async function decodeProtobuf(body: Buffer): Promise<NormalisedExport> {
  let request: Record<string, unknown>;
  try {
    request = await decodeExportRequestInSteps(body, yieldToEventLoop, SPANS_BETWEEN_YIELDS);
  } catch {
    throw undecodable("invalid_protobuf", "the body is not a protobuf ExportTraceServiceRequest");
  }
  return normaliseExportInSteps(request, yieldToEventLoop, SPANS_BETWEEN_YIELDS);
}

async function decodeJson(body: Buffer): Promise<NormalisedExport> {
  let request: unknown;
  try {
    request = await parseJsonInSteps(body.toString("utf8"), yieldToEventLoop);
  } catch (error) {
    throw undecodable(
      "invalid_json",
      error instanceof JsonTooDeepError ? error.message : "the body is not valid JSON",
    );
  }
  return normaliseExportInSteps(request, yieldToEventLoop, SPANS_BETWEEN_YIELDS);
}

function tooLarge() {
  return new ApiError(
    413,
    "payload_too_large",
    `the body exceeds ${MAX_EXPORT_BYTES} bytes (5 MiB), inflated`,
  );
}

const undecodable = (code: string, message: string) =>
  new ApiError(400, code, message, [{ path: "$", code, message }]);
