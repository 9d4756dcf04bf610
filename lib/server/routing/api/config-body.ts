import { findUnstorableStrings, UNSTORABLE_STRING, UNSTORABLE_STRING_MESSAGE } from "@/lib/contract/storable";
import { type DocumentError, parseRoutingDocument } from "@/lib/routing/document";
import { ApiError } from "../../http/api-error";
import { readBodyLimited } from "../../http/read-body";
import { ROUTING_BODY_BYTES } from "./read-body";

/** Media types a routing document may be sent as: JSON, or YAML under any of the names in use. */
const YAML_TYPES = new Set(["application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"]);

export type ConfigBody = {
  value: unknown;
  /** Where a JSON path is in the text, for a YAML body (its problems then say line and column). */
  locate?: (path: string) => { line: number; column: number } | undefined;
};

const mediaType = (header: string | null) => (header ?? "").split(";")[0]?.trim().toLowerCase() ?? "";

/** Does the caller ask for YAML (`Accept: application/yaml`, or `?format=yaml`)? */
export function wantsYaml(request: Request): boolean {
  if (new URL(request.url).searchParams.get("format") === "yaml") return true;
  const accept = request.headers.get("accept") ?? "";
  return accept.split(",").some((part) => YAML_TYPES.has(mediaType(part)));
}

const issuesOf = (errors: readonly DocumentError[]) =>
  errors.map(({ path, code, message }) => ({ path, code, message }));

/**
 * A routing config body: `application/json` or `application/yaml` (1 MiB at most). 415 for anything else,
 * 400 `invalid_json` / `invalid_yaml` with the line, column and path of each syntax error, 422 `invalid_body` for
 * text PostgreSQL cannot store.
 */
export async function readConfigBody(request: Request): Promise<ConfigBody> {
  const type = mediaType(request.headers.get("content-type"));
  const isYaml = YAML_TYPES.has(type);
  if (!isYaml && type !== "application/json")
    throw new ApiError(
      415,
      "unsupported_media_type",
      "Content-Type must be application/json or application/yaml",
    );
  const bytes = await readBodyLimited(
    request,
    ROUTING_BODY_BYTES,
    () => new ApiError(413, "payload_too_large", `the body exceeds ${ROUTING_BODY_BYTES} bytes`),
  );
  const text = bytes.toString("utf8");
  let body: ConfigBody;
  if (isYaml) {
    const parsed = parseRoutingDocument(text);
    if (!parsed.ok)
      throw new ApiError(400, "invalid_yaml", "the body is not valid YAML", issuesOf(parsed.errors));
    body = { value: parsed.value, locate: parsed.locate };
  } else {
    try {
      body = { value: JSON.parse(text) };
    } catch {
      throw new ApiError(400, "invalid_json", "the body is not valid JSON", [
        { path: "$", code: "invalid_json", message: "not JSON" },
      ]);
    }
  }
  const unstorable = findUnstorableStrings(body.value);
  if (unstorable.length > 0)
    throw new ApiError(
      422,
      "invalid_body",
      "the request body is invalid",
      unstorable.map(({ path }) => ({ path, code: UNSTORABLE_STRING, message: UNSTORABLE_STRING_MESSAGE })),
    );
  return body;
}

/** A 422 about a YAML body, each problem's message prefixed with the line and column its path points at. */
export function withLocations(error: unknown, body: ConfigBody): unknown {
  if (!(error instanceof ApiError) || !body.locate || error.issues.length === 0) return error;
  const locate = body.locate;
  const issues = error.issues.map((issue) => {
    const at = locate(issue.path);
    return at ? { ...issue, message: `line ${at.line}, column ${at.column}: ${issue.message}` } : issue;
  });
  return new ApiError(error.status, error.code, error.message, issues, error.headers);
}
