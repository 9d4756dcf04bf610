import { ApiError } from "../../http/api-error";
import { readJson as readSmallOrLargeJson } from "../../http/read-json";

export { parseBody } from "../../http/read-json";

// A routing config may be large (hundreds of channels and routes), so bodies up to 1 MiB are accepted here.
const MAX_BODY_BYTES = 1024 * 1024;

export const readJson = (request: Request) => readSmallOrLargeJson(request, MAX_BODY_BYTES);

/** A bigint id from a path segment, or 404 (an id that cannot exist is simply not found). */
export function idParam(value: string, what: string): bigint {
  if (!/^\d{1,18}$/.test(value)) throw new ApiError(404, "not_found", `${what} not found`);
  return BigInt(value);
}
