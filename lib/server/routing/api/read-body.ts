import { ApiError } from "../../http/api-error";

/** A routing config may be large (hundreds of channels and routes), so bodies up to 1 MiB are accepted here. */
export const ROUTING_BODY_BYTES = 1024 * 1024;

/** A bigint id from a path segment, or 404 (an id that cannot exist is simply not found). */
export function idParam(value: string, what: string): bigint {
  if (!/^\d{1,18}$/.test(value)) throw new ApiError(404, "not_found", `${what} not found`);
  return BigInt(value);
}
