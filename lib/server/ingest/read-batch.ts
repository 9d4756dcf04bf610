import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { ApiError } from "../http/api-error";
import { JSON_STEP_SIZES, JsonTooDeepError, parseJsonInSteps } from "../http/json-in-steps";
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
  // Parsed in steps (json-in-steps.ts): 5 MiB in one JSON.parse held the event loop for 40-odd ms.
  const records = contentType === "application/json" ? await parseEnvelope(text) : await parseNdjson(text);
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

/** The parse error's sentence: nesting too deep says so. */
const notJson = (error: unknown, what: string) =>
  error instanceof JsonTooDeepError ? `${what}: ${error.message}` : `${what} is not valid JSON`;

async function parseEnvelope(text: string): Promise<unknown[]> {
  let body: unknown;
  try {
    body = await parseJsonInSteps(text, yieldToEventLoop);
  } catch (error) {
    throw invalidJson(notJson(error, "the body"));
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

async function parseNdjson(text: string): Promise<unknown[]> {
  const records: unknown[] = [];
  const lines = text.split("\n");
  let parsedSinceYield = 0;
  for (const [lineIndex, line] of lines.entries()) {
    if (line.trim() === "") continue;
    try {
      records.push(await parseJsonInSteps(line, yieldToEventLoop));
    } catch (error) {
      throw invalidJson(notJson(error, `line ${lineIndex + 1}`), `$[line ${lineIndex + 1}]`);
    }
    parsedSinceYield += line.length;
    if (parsedSinceYield >= JSON_STEP_SIZES.pieceChars) {
      parsedSinceYield = 0;
      await yieldToEventLoop();
    }
  }
  return records;
}
