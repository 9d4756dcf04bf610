import type { Call, HealthRecord, Session } from "../contract/record";
import { type Decision, decide, toMs } from "./decision";
import {
  MCP_CAPABILITY_MISSING,
  MCP_URL_ELICITATION_REQUIRED,
  MCP_VERSION_UNSUPPORTED,
} from "./json-rpc-codes";
import { REASONS, type ReasonCode } from "./reasons";

/**
 * Session layer, rules 1–7: authorization, version agreement, handshake, capabilities.
 * v1.2: when the reporter did not see the handshake (`observed.handshake` false), rules 3–6
 * would judge evidence it could not have: they are skipped and `session.not_observed` is
 * pushed onto `pathCodes`. Rules 1, 2 and 7 rest on evidence it did see and still apply.
 */
export function sessionDecision(record: HealthRecord, pathCodes: ReasonCode[]): Decision | undefined {
  const { session, call } = record;
  const errors = callErrorCodes(call);

  // 1. Equal times count as resolved: the retry that succeeded answered that very challenge.
  const challenge = session.auth?.challenge;
  if (challenge !== undefined) {
    const resolvedAt = session.auth?.resolvedAt;
    if (resolvedAt === undefined || toMs(resolvedAt) < toMs(challenge.at)) {
      return decide("needs_auth", REASONS.AUTH_CHALLENGE_UNRESOLVED);
    }
  }
  // 2.
  if (errors.response === MCP_URL_ELICITATION_REQUIRED || errors.task === MCP_URL_ELICITATION_REQUIRED) {
    return byCallError(decide("needs_auth", REASONS.AUTH_URL_ELICITATION_REQUIRED));
  }
  if (record.observed?.handshake === false) pathCodes.push(REASONS.SESSION_NOT_OBSERVED);
  else {
    const handshake = handshakeDecision(session);
    if (handshake !== undefined) return handshake;
  }
  // 7.
  if (errors.response === MCP_CAPABILITY_MISSING || errors.task === MCP_CAPABILITY_MISSING) {
    return byCallError(decide("incompatible_session", REASONS.SESSION_CAPABILITY_MISSING));
  }
  if (errors.response === MCP_VERSION_UNSUPPORTED || errors.task === MCP_VERSION_UNSUPPORTED) {
    return byCallError(decide("incompatible_session", REASONS.SESSION_VERSION_UNSUPPORTED));
  }
  return undefined;
}

/** Rules 3–6: what the handshake (or, modern, the served version) agreed. */
function handshakeDecision(session: Session): Decision | undefined {
  const { protocol, capabilities } = session;
  // 3. A server that answered and named the versions it serves, none of them the client's (an empty list: a legacy
  // server that does not know `server/discover`), did not fail to agree: it cannot serve this client.
  if (protocol.acceptedVersion === undefined) {
    if (session.server === undefined) return decide("incompatible_session", REASONS.SESSION_NO_ANSWER);
    const served = protocol.serverSupportedVersions;
    if (served && !served.some((version) => protocol.clientSupportedVersions.includes(version)))
      return decide("incompatible_session", REASONS.SESSION_VERSION_UNSUPPORTED);
    return decide("incompatible_session", REASONS.SESSION_NO_AGREED_VERSION);
  }
  // 4.
  if (!protocol.clientSupportedVersions.includes(protocol.acceptedVersion)) {
    return decide("incompatible_session", REASONS.SESSION_VERSION_UNSUPPORTED);
  }
  // 5. Only the legacy era has a handshake; modern sessions are stateless.
  if (protocol.era === "legacy" && protocol.initializedAt === undefined) {
    return decide("incompatible_session", REASONS.SESSION_NOT_INITIALIZED);
  }
  // 6. "Present" means listed exactly: no prefix or wildcard matching.
  const missingServer = capabilities.required.server.some((name) => !capabilities.server.includes(name));
  const missingClient = capabilities.required.client.some((name) => !capabilities.client.includes(name));
  if (missingServer || missingClient) {
    return decide("incompatible_session", REASONS.SESSION_CAPABILITY_MISSING);
  }
  return undefined;
}

function byCallError(decision: Decision): Decision {
  return { ...decision, decidedByCallError: true };
}

/** The call's JSON-RPC error code and its failed task's error code, where present (rules 2, 7). */
function callErrorCodes(call: Call | undefined): { response?: number; task?: number } {
  if (call === undefined) return {};
  return {
    response: call.response?.kind === "error" ? call.response.error?.code : undefined,
    task: call.task?.status === "failed" ? call.task.error?.code : undefined,
  };
}
