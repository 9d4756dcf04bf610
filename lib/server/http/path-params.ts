import { z } from "zod";
import { isStorableString } from "@/lib/contract/storable";
import { ApiError, type ApiIssue } from "./api-error";

/** Longer than any id, name or fingerprint the API issues (ids are at most 128 characters). */
export const MAX_PATH_PARAM_LENGTH = 256;

/**
 * Route parameters, as Next.js decoded them from the URL: a segment that no id can be (NUL, an unpaired surrogate,
 * past `MAX_PATH_PARAM_LENGTH`) is 400 `invalid_path` at `$.path.<name>`, before it reaches a query.
 */
export function checkPathParams(params: unknown): void {
  if (typeof params !== "object" || params === null) return;
  const issues: ApiIssue[] = [];
  for (const [name, value] of Object.entries(params)) {
    for (const segment of Array.isArray(value) ? value : [value]) {
      if (typeof segment !== "string") continue;
      const problem = pathSegmentProblem(segment);
      if (problem) issues.push({ path: `$.path.${name}`, ...problem });
    }
  }
  if (issues.length > 0) throw new ApiError(400, "invalid_path", "the URL path is invalid", issues);
}

function pathSegmentProblem(segment: string): Omit<ApiIssue, "path"> | undefined {
  if (!isStorableString(segment))
    return { code: "unstorable_string", message: "a path segment cannot hold NUL or an unpaired surrogate" };
  if (segment.length > MAX_PATH_PARAM_LENGTH)
    return { code: "too_big", message: `a path segment has at most ${MAX_PATH_PARAM_LENGTH} characters` };
  return undefined;
}

/** The schema of a route's dynamic segments, all plain strings: `pathParams("chainId")` for `[chainId]`. */
export function pathParams<K extends string>(...names: K[]) {
  return z.object(Object.fromEntries(names.map((name) => [name, z.string()])) as Record<K, z.ZodString>);
}
