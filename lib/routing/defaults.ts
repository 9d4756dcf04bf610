// The shipped default routing (issue 6's table). Plain data: it is what "export config" prints for
// a fresh install, and teams edit it from there. Channels start without targets, so nothing is
// delivered until someone adds a webhook, Slack or PagerDuty target to the owner's channel. Every
// route has an explicit id: group keys stay readable ("tool-failed/tool-owner:{...}") and stable.
import type { TRoutingConfig } from "./config";

export const DEFAULT_CHANNELS = {
  credentials: "credentials-owner",
  integration: "integration-owner",
  client: "client-implementer",
  tool: "tool-owner",
  reconciliation: "reconciliation",
  outcome: "outcome-incident",
} as const;

const c = DEFAULT_CHANNELS;

export const DEFAULT_ROUTING_CONFIG: TRoutingConfig = {
  version: 1,
  channels: [
    { name: c.credentials, ownerRole: "credentials owner", targets: [] },
    { name: c.integration, ownerRole: "integration owner", targets: [] },
    { name: c.client, ownerRole: "client implementer", targets: [] },
    { name: c.tool, ownerRole: "tool owner", targets: [] },
    { name: c.reconciliation, ownerRole: "reconciliation (the effect-unknown queue)", targets: [] },
    { name: c.outcome, ownerRole: "outcome incident", targets: [] },
  ],
  route: {
    id: "default",
    name: "default",
    // Every alerting state has its own route below; the integration owner catches anything a
    // custom edit leaves unrouted, because an unrouted alert must still reach someone.
    receiver: c.integration,
    groupBy: ["server", "state"],
    groupWait: "30s",
    groupInterval: "5m",
    repeatInterval: "4h",
    routes: [
      {
        id: "url-elicitation",
        name: "url elicitation notice",
        matchers: ['state="needs_auth"', 'reason="auth.url_elicitation_required"'],
        receiver: c.credentials,
        severity: "low",
        repeatInterval: "24h",
      },
      {
        id: "needs-auth",
        name: "needs auth",
        matchers: ['state="needs_auth"'],
        receiver: c.credentials,
        severity: "high",
      },
      {
        id: "incompatible-session",
        name: "incompatible session",
        matchers: ['state="incompatible_session"'],
        receiver: c.integration,
      },
      {
        id: "stale-catalog",
        name: "stale catalog after bounded re-discovery",
        matchers: ['state="stale_catalog"'],
        receiver: c.integration,
        delay: "10m",
        confirmOnNextRecord: true,
      },
      {
        id: "protocol-error",
        name: "protocol error",
        matchers: ['state="protocol_error"'],
        receiver: c.client,
      },
      { id: "tool-failed", name: "tool failed", matchers: ['state="tool_failed"'], receiver: c.tool },
      {
        id: "effect-unknown-reconciliation",
        name: "effect unknown: reconciliation queue",
        matchers: ['state="effect_unknown"'],
        receiver: c.reconciliation,
        // One entry per chain in the queue, sent at once: each is a possible duplicate write.
        groupBy: ["chain"],
        groupWait: "0s",
        continue: true,
      },
      {
        id: "effect-unknown-integration",
        name: "effect unknown: integration owner",
        matchers: ['state="effect_unknown"'],
        receiver: c.integration,
      },
      {
        id: "false-success",
        name: "false success",
        matchers: ['state="false_success"'],
        receiver: c.outcome,
      },
      {
        id: "outcome-pending",
        name: "outcome still pending",
        matchers: ['state="unverified"', 'reason="outcome.pending"'],
        receiver: c.outcome,
        delay: "15m",
      },
    ],
  },
  inhibitRules: [
    {
      name: "needs_auth first",
      // A URL elicitation is one call waiting for a person, not a server locked out: it must not
      // hide that server's other failures behind a low-severity notice.
      sourceMatchers: ['state="needs_auth"', 'reason!="auth.url_elicitation_required"'],
      // Explicit list rather than state!="needs_auth": a rule must never reach effect_unknown or
      // false_success, and validation proves that only from a state matcher excluding them.
      targetMatchers: ['state=~"incompatible_session|stale_catalog|protocol_error|tool_failed|unverified"'],
      equal: ["server"],
    },
  ],
  silences: [],
};
