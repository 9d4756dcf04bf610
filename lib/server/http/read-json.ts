import type { z } from "zod";
import { ApiError } from "./api-error";

const MAX_BODY_BYTES = 64 * 1024;

/**
 * Reads a small JSON request body and validates it with `schema`: 400 `invalid_json` when it is not JSON,
 * 413 past 64 KiB, 422 `invalid_body` with one issue per problem, each located by a JSON path (`$.owner`).
 */
export async function readJsonBody<T extends z.ZodType>(request: Request, schema: T): Promise<z.infer<T>> {
  const contentType = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (contentType !== "application/json") {
    throw new ApiError(415, "unsupported_media_type", "Content-Type must be application/json");
  }
  const text = await request.text();
  if (Buffer.byteLength(text) > MAX_BODY_BYTES) {
    throw new ApiError(413, "payload_too_large", `the body exceeds ${MAX_BODY_BYTES} bytes`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError(400, "invalid_json", "the body is not valid JSON", [
      { path: "$", code: "invalid_json", message: "not JSON" },
    ]);
  }
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
