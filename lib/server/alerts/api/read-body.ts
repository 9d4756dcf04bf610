import type { z } from "zod";
import { jsonPath } from "@/lib/routing/validate";
import { ApiError } from "../../http/api-error";

// A routing config may be large (hundreds of channels and routes), so bodies up to 1 MiB are accepted here.
const MAX_BODY_BYTES = 1024 * 1024;

/** The request's JSON body: 415 unless application/json, 413 past 1 MiB, 400 `invalid_json` when unparsable. */
export async function readJson(request: Request): Promise<unknown> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json")
    throw new ApiError(415, "unsupported_media_type", "Content-Type must be application/json");
  const text = await request.text();
  if (Buffer.byteLength(text) > MAX_BODY_BYTES)
    throw new ApiError(413, "payload_too_large", `the body exceeds ${MAX_BODY_BYTES} bytes`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError(400, "invalid_json", "the body is not valid JSON", [
      { path: "$", code: "invalid_json", message: "not JSON" },
    ]);
  }
}

/** Validates a body with zod: 422 `invalid_body`, one issue per problem with its JSON path. */
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
      message: issue.message,
    })),
  );
}

/** A bigint id from a path segment, or 404 (an id that cannot exist is simply not found). */
export function idParam(value: string, what: string): bigint {
  if (!/^\d{1,18}$/.test(value)) throw new ApiError(404, "not_found", `${what} not found`);
  return BigInt(value);
}
