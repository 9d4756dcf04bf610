import type { TransportKind } from "../record-types";

/**
 * The adopter's transports and errors may come from another copy of the SDK than the one the
 * collector resolves (a nested install, a bundled copy, `npm link`): `instanceof` against the
 * collector's copy would then fail. So both are recognised by what they are, not by identity.
 */
const KIND_BY_CLASS_NAME: Record<string, TransportKind> = {
  StdioClientTransport: "stdio",
  StreamableHTTPClientTransport: "streamable-http",
  SSEClientTransport: "sse",
};

/** The transport kind from the class (or a parent class) name, else from the members each kind has. */
export function transportKindOf(transport: object): TransportKind {
  for (let proto = Object.getPrototypeOf(transport); proto && proto !== Object.prototype; ) {
    const kind = KIND_BY_CLASS_NAME[(proto.constructor as { name?: string } | undefined)?.name ?? ""];
    if (kind) return kind;
    proto = Object.getPrototypeOf(proto);
  }
  // A minified bundle renames classes: fall back to members both SDKs' transports expose.
  const members = transport as Record<string, unknown>;
  if (typeof members.terminateSession === "function" && "sessionId" in members) return "streamable-http";
  if ("pid" in members && "stderr" in members) return "stdio";
  return "other";
}

/** JSON-RPC code SDK 1.x gives its `McpError` when the connection closed under a request. */
const V1_CONNECTION_CLOSED = -32000;
/** `SdkErrorCode.ConnectionClosed` of SDK 2.x. */
const V2_CONNECTION_CLOSED = "CONNECTION_CLOSED";

/**
 * "The connection closed under this request", from either SDK's error by its code. Only asked
 * when no response for the request crossed the wire, so a server's own -32000 answer never
 * reaches it.
 */
export function isConnectionClosedError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === V1_CONNECTION_CLOSED || code === V2_CONNECTION_CLOSED;
}

/**
 * The HTTP status a transport error carries, from either SDK: 1.x's `StreamableHTTPError` has it
 * as `code` (JSON-RPC codes are negative, so a 100–599 code can only be a status), 2.x's
 * `SdkHttpError` as `status`.
 */
export function httpStatusOfError(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { code, status } = error as { code?: unknown; status?: unknown };
  const candidate = typeof status === "number" ? status : code;
  return typeof candidate === "number" && Number.isInteger(candidate) && candidate >= 100 && candidate <= 599
    ? candidate
    : undefined;
}
