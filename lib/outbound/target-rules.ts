// Rules a delivery target's URL must meet before anything is sent to it, beyond the address policy: a Slack target
// posts to Slack's incoming-webhook host and a PagerDuty target to PagerDuty's Events API, over https. A URL that
// pretends to be one (a token in the path, sent anywhere) is refused. Pure.
import {
  type AddressRefusal,
  bareHost,
  decideUrl,
  isAllowed,
  type OutboundPolicy,
  refusalText,
} from "./address-policy";

export const SLACK_HOSTS = ["hooks.slack.com", "hooks.slack-gov.com"] as const;
export const PAGERDUTY_HOSTS = ["events.pagerduty.com", "events.eu.pagerduty.com"] as const;

export type TargetRefusal = { code: "outbound_refused" | "vendor_host_required"; message: string };

const vendorHosts: Record<string, readonly string[]> = { slack: SLACK_HOSTS, pagerduty: PAGERDUTY_HOSTS };

/**
 * Why a target's URL is refused, or null. The vendor-host rule gives way only to an address an admin opened in
 * RECEIPT_OUTBOUND_ALLOW (a relay on premises, the tests' local receiver): an allowed range is a deliberate choice.
 */
export function targetRefusal(
  target: { type: string; url: string },
  policy: OutboundPolicy,
  local: (address: string) => boolean,
): TargetRefusal | null {
  const refused: AddressRefusal | null = decideUrl(target.url, policy, local);
  if (refused) return { code: "outbound_refused", message: refusalText(refused) };
  const hosts = vendorHosts[target.type];
  if (!hosts) return null;
  const url = new URL(target.url);
  const host = bareHost(url.hostname);
  if (isAllowed(host, policy)) return null;
  if (url.protocol === "https:" && hosts.includes(host) && (url.port === "" || url.port === "443"))
    return null;
  return {
    code: "vendor_host_required",
    message: `a ${target.type === "slack" ? "Slack" : "PagerDuty"} target posts to https://${hosts.join(" or https://")}`,
  };
}
