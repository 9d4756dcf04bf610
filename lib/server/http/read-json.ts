import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { z } from "zod";
import { findUnstorableStrings, UNSTORABLE_STRING, UNSTORABLE_STRING_MESSAGE } from "@/lib/contract/storable";
import { ApiError, bodyIncomplete } from "./api-error";
import { bufferedBodyText } from "./buffered-body";
import { JsonTooDeepError, parseJsonInSteps } from "./json-in-steps";

export const SMALL_BODY_BYTES = 64 * 1024;

/**
 * The request's JSON body: 415 unless application/json, 413 past `maxBytes`, 400 `invalid_json` when unparsable,
 * 422 `invalid_body` when any string or key holds what PostgreSQL cannot store (NUL, an unpaired surrogate).
 */
export async function readJson(request: Request, maxBytes = SMALL_BODY_BYTES): Promise<unknown> {
  const contentType = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (contentType !== "application/json") {
    throw new ApiError(415, "unsupported_media_type", "Content-Type must be application/json");
  }
  const text =
    bufferedBodyText(request) ??
    (await request.text().catch(() => {
      throw bodyIncomplete();
    }));
  if (Buffer.byteLength(text) > maxBytes) {
    throw new ApiError(413, "payload_too_large", `the body exceeds ${maxBytes} bytes`);
  }
  let body: unknown;
  try {
    body = await parseJsonInSteps(text, yieldToEventLoop); // a batch of megabytes must not hold the event loop
  } catch (error) {
    const deep = error instanceof JsonTooDeepError;
    throw new ApiError(400, "invalid_json", deep ? error.message : "the body is not valid JSON", [
      { path: "$", code: "invalid_json", message: deep ? error.message : "not JSON" },
    ]);
  }
  const unstorable = findUnstorableStrings(body);
  if (unstorable.length > 0) {
    throw new ApiError(
      422,
      "invalid_body",
      "the request body is invalid",
      unstorable.map(({ path }) => ({ path, code: UNSTORABLE_STRING, message: UNSTORABLE_STRING_MESSAGE })),
    );
  }
  return body;
}

/** Validates a body with zod: 422 `invalid_body`, one issue per problem located by a JSON path (`$.owner`). */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  throw new ApiError(
    422,
    "invalid_body",
    "the request body is invalid",
    parsed.error.issues.map((issue) => ({
      path: jsonPath(issue.path),
      code: issue.code,
      message: issue.code === "unrecognized_keys" ? `unknown field: ${issue.keys.join(", ")}` : issue.message,
    })),
  );
}

function jsonPath(segments: readonly PropertyKey[]): string {
  return segments.reduce<string>(
    (path, segment) => (typeof segment === "number" ? `${path}[${segment}]` : `${path}.${String(segment)}`),
    "$",
  );
}
