// Whether each channel target's deliveries arrive (Grafana's contact point health): its last success, its last
// failure said as a sentence an on-call engineer can act on, and what died recently. Pure: the routing page, the
// dashboard's banner and their tests share it.

/** What the deliveries of one target (channel, position) show over the window read. */
export type TargetDeliveryFacts = {
  channel: string;
  targetIndex: number;
  lastSuccessAt: Date | null;
  lastAttempt: { at: Date; error: string | null } | null;
  lastFailure: { at: Date; error: string } | null;
  dead: number;
  retrying: number;
};

export type TargetHealth = {
  channel: string;
  targetIndex: number;
  /** failing: its newest attempt failed; ok: it succeeded; idle: nothing was sent in the window. */
  status: "ok" | "failing" | "idle";
  lastSuccessAt: string | null;
  lastFailure: { at: string; sentence: string } | null;
  /** Deliveries given up on in the window (the dead letters), and those waiting for another attempt. */
  dead: number;
  retrying: number;
};

export function targetHealth(facts: TargetDeliveryFacts): TargetHealth {
  const status = !facts.lastAttempt ? "idle" : facts.lastAttempt.error === null ? "ok" : "failing";
  return {
    channel: facts.channel,
    targetIndex: facts.targetIndex,
    status,
    lastSuccessAt: facts.lastSuccessAt?.toISOString() ?? null,
    lastFailure: facts.lastFailure
      ? { at: facts.lastFailure.at.toISOString(), sentence: deliveryErrorSentence(facts.lastFailure.error) }
      : null,
    dead: facts.dead,
    retrying: facts.retrying,
  };
}

const SOCKET_ERRORS: Record<string, string> = {
  ECONNREFUSED: "Nothing listens at that address: the connection was refused.",
  ECONNRESET: "The receiver closed the connection before answering.",
  ENOTFOUND: "The host name does not resolve: check the URL's host.",
  EAI_AGAIN: "The host name could not be resolved just now (DNS).",
  EINVAL: "The URL cannot be connected to: its host is malformed or too long.",
  EHOSTUNREACH: "The receiver's network cannot be reached.",
  ENETUNREACH: "The receiver's network cannot be reached.",
  ETIMEDOUT: "The connection to the receiver timed out.",
  EPIPE: "The receiver closed the connection while the notification was sent.",
  CERT_HAS_EXPIRED: "The receiver's TLS certificate has expired.",
  DEPTH_ZERO_SELF_SIGNED_CERT: "The receiver's TLS certificate is self-signed and not trusted.",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "The receiver's TLS certificate cannot be verified.",
  ERR_TLS_CERT_ALTNAME_INVALID: "The receiver's TLS certificate is for another host name.",
};

/** A stored delivery error ("HTTP 404", "ECONNREFUSED", "timeout after 5000 ms"…) as a sentence that says what to do. */
export function deliveryErrorSentence(error: string): string {
  const http = /^HTTP (\d{3})/.exec(error);
  if (http) {
    const status = Number(http[1]);
    if (status === 401 || status === 403)
      return `The receiver refused the credentials (HTTP ${status}): check the URL's token, the secret or the routing key.`;
    if (status === 404 || status === 410)
      return `Nothing at that URL (HTTP ${status}): the webhook was removed or the URL is wrong.`;
    if (status === 429)
      return "The receiver is rate-limiting these notifications (HTTP 429); they are retried.";
    if (status >= 500) return `The receiver failed (HTTP ${status}); the notification is retried.`;
    return `The receiver refused the notification (HTTP ${status}).`;
  }
  const timeout = /^timeout after (\d+) ms/.exec(error);
  if (timeout) return `The receiver did not answer within ${Number(timeout[1]) / 1000} s.`;
  if (error.startsWith("refused by the outbound policy"))
    return `Receipt's outbound policy refused the address (${error.replace(/^refused by the outbound policy:? ?/, "").replace(/^\((.*)\)$/, "$1")}); RECEIPT_OUTBOUND_ALLOW opens a private range.`;
  if (error.startsWith("set aside: "))
    return `Set aside by the delivery job: ${error.slice("set aside: ".length)}.`;
  return SOCKET_ERRORS[error] ?? `The delivery failed: ${error}.`;
}

/** GET /api/v1/routing/targets/health: every target of the config in force, in config order. */
export type TargetHealthAnswer = { since: string; targets: (TargetHealth & { type: string })[] };
