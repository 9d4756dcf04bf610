import { ApiError } from "../http/api-error";
import { readBodyLimited } from "../http/read-body";

export const MAX_BATCH_BYTES = 5 * 1024 * 1024;
export const MAX_BATCH_RECORDS = 1000;

/**
 * Reads `POST /api/v1/records`: `{ "records": [...] }` as application/json, or one record a line as
 * application/x-ndjson. Stops reading past 5 MiB instead of buffering whatever a client sends.
 */
export async function readBatch(request: Request): Promise<unknown[]> {
  const contentType = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (contentType !== "application/json" && contentType !== "application/x-ndjson") {
    throw new ApiError(
      415,
      "unsupported_media_type",
      "Content-Type must be application/json or application/x-ndjson",
    );
  }
  const text = (await readBodyLimited(request, MAX_BATCH_BYTES, tooLarge)).toString("utf8");
  const records = contentType === "application/json" ? parseEnvelope(text) : parseNdjson(text);
  if (records.length === 0) {
    throw new ApiError(422, "invalid_batch", "a batch holds 1 to 1000 records", [
      { path: "$.records", code: "too_small", message: "at least one record is required" },
    ]);
  }
  if (records.length > MAX_BATCH_RECORDS) {
    throw new ApiError(422, "invalid_batch", "a batch holds 1 to 1000 records", [
      { path: "$.records", code: "too_big", message: `at most ${MAX_BATCH_RECORDS} records per batch` },
    ]);
  }
  return records;
}

function tooLarge() {
  return new ApiError(413, "payload_too_large", `the body exceeds ${MAX_BATCH_BYTES} bytes (5 MiB)`);
}

function invalidJson(message: string, path = "$") {
  return new ApiError(400, "invalid_json", message, [{ path, code: "invalid_json", message }]);
}

function parseEnvelope(text: string): unknown[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw invalidJson("the body is not valid JSON");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ApiError(422, "invalid_batch", 'the body must be an object { "records": [...] }', [
      { path: "$", code: "invalid_type", message: "expected an object" },
    ]);
  }
  const unknownKeys = Object.keys(body).filter((key) => key !== "records");
  const records = (body as { records?: unknown }).records;
  if (!Array.isArray(records) || unknownKeys.length > 0) {
    throw new ApiError(422, "invalid_batch", 'the body must be an object { "records": [...] }', [
      ...(Array.isArray(records)
        ? []
        : [{ path: "$.records", code: "invalid_type", message: "expected an array" }]),
      ...unknownKeys.map(() => ({
        path: "$",
        code: "unrecognized_keys",
        message: "unknown field in the envelope",
      })),
    ]);
  }
  return records;
}

function parseNdjson(text: string): unknown[] {
  const records: unknown[] = [];
  const lines = text.split("\n");
  for (const [lineIndex, line] of lines.entries()) {
    if (line.trim() === "") continue;
    try {
      records.push(JSON.parse(line));
    } catch {
      throw invalidJson(`line ${lineIndex + 1} is not valid JSON`, `$[line ${lineIndex + 1}]`);
    }
  }
  return records;
}
