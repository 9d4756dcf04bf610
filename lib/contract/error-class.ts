/**
 * The sanitized class recorded for a JSON-RPC error (call.response.error.class, call.task.error.class).
 * The class is derived from the numeric code only: an error *message* can carry arguments,
 * paths or tokens, so it never reaches a record.
 */
const CLASSES: Record<number, string> = {
  [-32700]: "parse_error",
  [-32600]: "invalid_request",
  [-32601]: "method_not_found",
  [-32602]: "invalid_params",
  [-32603]: "internal_error",
  [-32000]: "connection_closed",
  [-32001]: "request_timeout",
  [-32002]: "resource_not_found",
  [-32020]: "invalid_meta",
  [-32021]: "capability_missing",
  [-32022]: "version_unsupported",
  [-32042]: "url_elicitation_required",
};

export function errorClass(code: number): string {
  const known = CLASSES[code];
  if (known) return known;
  if (code >= -32099 && code <= -32000) return "server_error";
  if (code >= -32768 && code <= -32000) return "reserved_error";
  return "application_error";
}
