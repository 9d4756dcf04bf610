// Notification payloads. Redaction is by construction: every field is copied explicitly from a
// typed source, so nothing the caller did not name here (tokens, arguments, content) can leak,
// even if an object with extra keys is passed in at runtime.
import { URL_ELICITATION_REASON } from "./alerts";
import type { Alert, Severity, State } from "./types";

/** Evidence the caller extracts from the stored (already redacted) record for the payload. */
export interface AlertContext {
  // needs_auth: what was challenged and what it needs — never a token.
  resource?: string;
  requiredScope?: string;
  resourceMetadataUrl?: string;
  authError?: string;
  // incompatible_session
  clientVersion?: string;
  serverVersion?: string;
  requestedVersion?: string;
  negotiatedVersion?: string;
  capabilities?: { client: string[]; server: string[]; missing?: string[] };
  // protocol_error / tool_failed
  method?: string;
  requestId?: string | number;
  errorCode?: number;
  errorClass?: string;
  // effect_unknown
  operationKey?: string;
  effectStatus?: "committed" | "absent" | "unknown";
  // false_success / unverified
  verifier?: string;
  verdict?: "pass" | "fail" | "unavailable";
}

/** One alert as it appears in a notification. */
export interface NotifiedAlert {
  alert: Alert;
  status: "firing" | "resolved";
  /** RFC 3339: when the alert started firing. */
  startsAt: string;
  /** RFC 3339: when it resolved (resolved alerts only). */
  endsAt?: string;
  /** The effective severity from the matched route (RouteMatch.severity). */
  severity: Severity;
  context?: AlertContext;
}

export interface Notification {
  groupKey: string;
  receiver: string;
  alerts: NotifiedAlert[];
}

export interface LinkBuilder {
  chain(chainId: string): string;
  reconcile(chainId: string): string;
}

/** The dashboard's pages: a chain's evidence, and its row in the effect-unknown queue (the reconcile action). */
export const linksFor = (baseUrl: string): LinkBuilder => {
  const base = baseUrl.replace(/\/+$/, "");
  return {
    chain: (id) => `${base}/chains/${encodeURIComponent(id)}`,
    reconcile: (id) => `${base}/queues/effect-unknown?chain=${encodeURIComponent(id)}`,
  };
};

export const RETRY_ALLOWED = "retry allowed: the failure is known to be reversible";
export const RETRY_UNSAFE =
  "do not retry until the destination is checked: the call may have changed something";
export const DO_NOT_RETRY = "do not retry automatically: the write may have happened; reconcile first";

/** What the receiving person should do, per state (and the tool_failed retry rule). */
export function guidanceFor(alert: Alert): string {
  const guidance: Record<State, string> = {
    needs_auth:
      alert.reasons[0] === URL_ELICITATION_REASON
        ? "a person must complete the URL elicitation the server asked for (a notice, not an outage)"
        : "re-authorize: the challenged resource needs new credentials or the required scope",
    incompatible_session:
      "align client and server: no agreed protocol version or a required capability is missing",
    stale_catalog:
      "the tool list was still stale after one bounded re-discovery; check tools/list on the server",
    protocol_error: "fix the caller: it broke the protocol contract; retrying the same request will not help",
    tool_failed: alert.retrySafe === true ? RETRY_ALLOWED : RETRY_UNSAFE,
    working: "",
    effect_unknown: DO_NOT_RETRY,
    false_success: "the call reported success but the deliverable is not there; see the failing verifier",
    unverified: "the declared outcome verifier has not answered; check the verifier",
    healthy: "",
  };
  return guidance[alert.state];
}

const defined = (entries: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined));

/** The state-specific fields of the table, copied one by one from the context. */
export function detailsFor(alert: Alert, ctx: AlertContext = {}): Record<string, unknown> {
  switch (alert.state) {
    case "needs_auth":
      return defined({
        resource: ctx.resource,
        requiredScope: ctx.requiredScope,
        resourceMetadataUrl: ctx.resourceMetadataUrl,
        authError: ctx.authError,
      });
    case "incompatible_session":
      return defined({
        clientVersion: ctx.clientVersion,
        serverVersion: ctx.serverVersion,
        requestedVersion: ctx.requestedVersion,
        negotiatedVersion: ctx.negotiatedVersion,
        capabilities: ctx.capabilities && {
          client: [...ctx.capabilities.client],
          server: [...ctx.capabilities.server],
          ...(ctx.capabilities.missing ? { missing: [...ctx.capabilities.missing] } : {}),
        },
      });
    case "protocol_error":
    case "tool_failed":
      return defined({
        method: ctx.method,
        requestId: ctx.requestId,
        errorCode: ctx.errorCode,
        errorClass: ctx.errorClass,
        retrySafe: alert.state === "tool_failed" ? (alert.retrySafe ?? false) : undefined,
      });
    case "effect_unknown":
      return defined({ operationKey: ctx.operationKey, effectStatus: ctx.effectStatus, retrySafe: false });
    case "false_success":
      // Either the verifier failed or the destination showed nothing (effect.absent): say which.
      return defined({ verifier: ctx.verifier, verdict: ctx.verdict, effectStatus: ctx.effectStatus });
    case "unverified":
      return defined({ verifier: ctx.verifier, verdict: ctx.verdict });
    default:
      return {};
  }
}
