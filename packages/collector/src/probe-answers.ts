import { httpStatusOfError } from "./sdk/duck-typing";
import type { SessionState } from "./session-state";
import { METHOD_NOT_FOUND, UNSUPPORTED_VERSION, versionRejected } from "./session-modern";
import { type RequestId, type TappableTransport, WireTap } from "./wire-tap";

type Json = Record<string, unknown>;
const DISCOVER = "server/discover";
const PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion";

/**
 * SDK 2.x asks `server/discover` before a modern or `auto` session starts. A server that answers the probe
 * with anything but a modern result (a legacy server: JSON-RPC -32601, or HTTP 400 over Streamable HTTP) makes a
 * pinned client fail: the server did answer, and the record must say so (`session.server` present, and an empty
 * `serverSupportedVersions`: it serves no modern version, so the classifier says `session.version_unsupported`, never
 * `session.no_answer`). A probe that got no answer (a timeout) leaves the session unanswered.
 *
 * Two places the tap of the session's own transport does not see: an HTTP error status (the transport's `send`
 * rejects, no message arrives), and the SDK's stdio probe, which runs on a disposable sibling process it builds
 * with `new transport.constructor(params)`. For the latter the constructor is shadowed on this transport only,
 * so that the sibling gets its own tap; the sibling is still the SDK's own transport class.
 */
export function observeProbeAnswers(transport: TappableTransport, tap: WireTap, state: SessionState): void {
  tap.onSendFailed(DISCOVER, (error) => {
    const status = httpStatusOfError(error);
    // 401/403 is the authorization layer's (needs_auth); a 5xx may be a gateway with no server behind it.
    if (status !== undefined && status >= 400 && status < 500 && status !== 401 && status !== 403) {
      state.answered = true;
      state.discoverRefused = true;
    }
  });
  tapSiblingProbe(transport, state);
}

/** Records the answer to each `server/discover` crossing `tap`: answered, and a -32022's supported versions. */
function recordDiscoverAnswers(tap: WireTap, state: SessionState): void {
  tap.onRequestSent((method, id: RequestId, params) => {
    if (method !== DISCOVER) return;
    const version = (params._meta as Json | undefined)?.[PROTOCOL_VERSION_META_KEY];
    tap.onResponse(id, (response) => {
      state.answered = true;
      if (response.error?.code === UNSUPPORTED_VERSION)
        versionRejected(state, response.error.data, typeof version === "string" ? version : undefined);
      else if (response.error?.code === METHOD_NOT_FOUND) state.discoverRefused = true;
    });
  });
}

/** The SDK's own stdio transport (its prototype owns `_dispose`), the one it probes on a sibling of. */
function isSdkStdioTransport(transport: object): boolean {
  const proto = Object.getPrototypeOf(transport) as object | null;
  return proto !== null && Object.hasOwn(proto, "_dispose") && Object.hasOwn(proto, "constructor");
}

function tapSiblingProbe(transport: TappableTransport, state: SessionState): void {
  if (!isSdkStdioTransport(transport) || Object.hasOwn(transport, "constructor")) return;
  const Base = (transport as unknown as { constructor: new (params: unknown) => TappableTransport })
    .constructor;
  function SiblingTransport(params: unknown): TappableTransport {
    const sibling = Reflect.construct(Base, [params]) as TappableTransport;
    recordDiscoverAnswers(new WireTap(sibling), state);
    return sibling;
  }
  SiblingTransport.prototype = Base.prototype;
  Object.defineProperty(transport, "constructor", {
    configurable: true,
    enumerable: false,
    writable: true,
    value: SiblingTransport,
  });
}
