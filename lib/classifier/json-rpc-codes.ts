/** JSON-RPC error codes the contract gives meaning to (§3 rules 2, 7, 13, 14; §4 retrySafe). */
export const RPC_PARSE_ERROR = -32700;
export const RPC_INVALID_REQUEST = -32600;
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_INVALID_PARAMS = -32602;
/** MCP: the request is malformed for the negotiated protocol (a caller error). */
export const MCP_CALLER_PROTOCOL_ERROR = -32020;
/** MCP: a capability the request depends on was not negotiated. */
export const MCP_CAPABILITY_MISSING = -32021;
/** MCP: the requested protocol version is not supported (data.supported lists the server's). */
export const MCP_VERSION_UNSUPPORTED = -32022;
/** MCP: the server needs the user to complete a URL elicitation (e.g. a third-party sign-in). */
export const MCP_URL_ELICITATION_REQUIRED = -32042;

/** The *caller set* of rule 13: the caller broke the contract, the server did not run the tool. */
export const CALLER_ERROR_CODES: ReadonlySet<number> = new Set([
  RPC_PARSE_ERROR,
  RPC_INVALID_REQUEST,
  RPC_METHOD_NOT_FOUND,
  RPC_INVALID_PARAMS,
  MCP_CALLER_PROTOCOL_ERROR,
]);

/** Codes with which the server refused a call before running it (§4: repeating it cannot duplicate a write). */
export const REJECTED_WITHOUT_RUNNING_CODES: ReadonlySet<number> = new Set([
  ...CALLER_ERROR_CODES,
  MCP_CAPABILITY_MISSING,
  MCP_VERSION_UNSUPPORTED,
  MCP_URL_ELICITATION_REQUIRED,
]);

export function isCallerError(code: number | undefined): boolean {
  return code !== undefined && CALLER_ERROR_CODES.has(code);
}
