// Where Receipt may send (webhooks, Slack, PagerDuty, personal targets, destination checks). Pure: the service
// (lib/server/outbound) resolves names and feeds every address it would connect to through `decideAddress`.
//
// The default refuses everything that is not a public unicast address: loopback, private, link-local, unique-local,
// carrier-grade NAT, multicast, reserved and the cloud metadata endpoints. An admin opens ranges with
// RECEIPT_OUTBOUND_ALLOW (an on-premises receiver, the tests' 127.0.0.1). Two endpoints stay closed whatever is
// allowed: this app's own port on its own addresses and the database's, so a target can never reach either.
import ipaddr from "ipaddr.js";

type Address = ipaddr.IPv4 | ipaddr.IPv6;
export type AddressRange = { address: Address; prefix: number; text: string };

/** Why an address is refused: shown to readers as "refused by the outbound policy (<reason>)". */
export type AddressRefusal =
  | "loopback address"
  | "private address"
  | "link-local address"
  | "metadata address"
  | "reserved address"
  | "this app's own address"
  | "the database's address"
  | "not an address";

export type OutboundPolicy = {
  /** Ranges an admin opened (RECEIPT_OUTBOUND_ALLOW). */
  allow: readonly AddressRange[];
  /** Endpoints never reached, allowed range or not: this app's own port and the database. */
  closed: readonly ClosedEndpoint[];
};

export type ClosedEndpoint = {
  reason: "this app's own address" | "the database's address";
  port: number;
  /** Addresses the endpoint listens on; empty: any of this machine's (`local` decides). */
  addresses: readonly string[];
};

/** Cloud instance metadata services: AWS (v4 and v6), ECS task metadata, Alibaba. GCP and Azure use 169.254.169.254. */
const METADATA_ADDRESSES = new Set(["169.254.169.254", "fd00:ec2::254", "169.254.170.2", "100.100.100.200"]);

/** Names of metadata services, refused before any lookup (a resolver inside a cloud answers them). */
const METADATA_NAMES = new Set(["metadata", "metadata.google.internal", "metadata.goog", "instance-data"]);

export class OutboundAllowError extends Error {}

/** RECEIPT_OUTBOUND_ALLOW: addresses or CIDR ranges, comma- or space-separated ("127.0.0.0/8, ::1"). */
export function parseOutboundAllow(text: string | undefined): AddressRange[] {
  const entries = (text ?? "").split(/[\s,]+/).filter(Boolean);
  return entries.map((entry) => {
    const [addressText = "", prefixText, ...rest] = entry.split("/");
    // Only the written forms people read (10.0.0.1, fd00::1): ipaddr also takes "10.0.0" and "0x7f.1".
    const written = ipaddr.IPv4.isValidFourPartDecimal(addressText) || ipaddr.IPv6.isValid(addressText);
    if (!written || rest.length > 0 || (prefixText !== undefined && !ipaddr.isValidCIDR(entry)))
      throw new OutboundAllowError(
        `"${entry}" is not an IP address or CIDR range (e.g. 10.0.0.0/8, 127.0.0.1, ::1)`,
      );
    const parsed = ipaddr.parse(addressText);
    const address = unmapped(parsed);
    const full = address.kind() === "ipv4" ? 32 : 128;
    // ::ffff:10.0.0.0/104 is 10.0.0.0/8.
    const prefix = prefixText === undefined ? full : Number(prefixText) - (isMapped(parsed) ? 96 : 0);
    return { address, prefix: Math.max(0, prefix), text: entry };
  });
}

const isMapped = (address: Address): boolean =>
  address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress();

/** ::ffff:127.0.0.1 is 127.0.0.1: an IPv4-mapped address is judged as the IPv4 address it carries. */
function unmapped(address: Address): Address {
  return isMapped(address) ? (address as ipaddr.IPv6).toIPv4Address() : address;
}

/**
 * IPv6 forms that carry an IPv4 address a gateway will connect to (NAT64's 64:ff9b::/96, 6to4's 2002::/16): judged
 * as that IPv4 address, so 64:ff9b::7f00:1 is loopback.
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const range = address.range();
  const bytes = address.toByteArray();
  if (range === "rfc6052") return ipaddr.fromByteArray(bytes.slice(12)) as ipaddr.IPv4;
  if (range === "6to4") return ipaddr.fromByteArray(bytes.slice(2, 6)) as ipaddr.IPv4;
  return null;
}

/** What class of address this is; null for a public unicast address. */
export function addressClass(text: string): AddressRefusal | null {
  if (!ipaddr.isValid(text)) return "not an address";
  const address = unmapped(ipaddr.parse(text));
  if (METADATA_ADDRESSES.has(address.toNormalizedString()) || METADATA_ADDRESSES.has(address.toString()))
    return "metadata address";
  if (address.kind() === "ipv6") {
    const carried = embeddedIPv4(address as ipaddr.IPv6);
    if (carried) return addressClass(carried.toString());
    if ((address as ipaddr.IPv6).range() === "teredo") return "reserved address";
  }
  // A string: ipaddr's own types lack ranges its code returns (deprecatedSiteLocal).
  const range: string = address.range();
  if (range === "unicast") return null;
  if (range === "loopback" || range === "unspecified") return "loopback address";
  if (
    range === "private" ||
    range === "uniqueLocal" ||
    range === "carrierGradeNat" ||
    range === "deprecatedSiteLocal"
  )
    return "private address";
  if (range === "linkLocal") return "link-local address";
  return "reserved address";
}

function inRange(address: Address, range: AddressRange): boolean {
  return address.kind() === range.address.kind() && address.match(range.address, range.prefix);
}

/** Whether an admin opened a range holding this address. */
export function isAllowed(text: string, policy: Pick<OutboundPolicy, "allow">): boolean {
  if (!ipaddr.isValid(text)) return false;
  const address = unmapped(ipaddr.parse(text));
  return policy.allow.some((range) => inRange(address, range));
}

/**
 * May Receipt connect to `address`:`port`? `local` says whether the address is one of this machine's (a closed
 * endpoint listening on every interface is reached through any of them).
 */
export function decideAddress(
  text: string,
  port: number,
  policy: OutboundPolicy,
  local: (address: string) => boolean,
): AddressRefusal | null {
  if (!ipaddr.isValid(text)) return "not an address";
  const address = unmapped(ipaddr.parse(text)).toString();
  for (const endpoint of policy.closed) {
    if (endpoint.port !== port) continue;
    const listensHere =
      endpoint.addresses.length === 0
        ? local(address) || addressClass(address) === "loopback address"
        : endpoint.addresses.some((listening) => sameAddress(listening, address));
    if (listensHere) return endpoint.reason;
  }
  if (isAllowed(address, policy)) return null;
  const refusal = addressClass(address);
  if (refusal) return refusal;
  return local(address) ? "this app's own address" : null;
}

function sameAddress(a: string, b: string): boolean {
  if (!ipaddr.isValid(a) || !ipaddr.isValid(b)) return a === b;
  return unmapped(ipaddr.parse(a)).toString() === unmapped(ipaddr.parse(b)).toString();
}

/** A URL's host without IPv6 brackets, lower-cased, without a trailing dot. */
export function bareHost(hostname: string): string {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

/** A name refused before any lookup: the metadata services' names. */
export function nameRefusal(hostname: string): AddressRefusal | null {
  return METADATA_NAMES.has(bareHost(hostname)) ? "metadata address" : null;
}

/** The port a URL connects to. */
export function urlPort(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

/**
 * What can be decided from the URL alone (at save time and before a send): a literal address, a metadata name, an
 * unusable URL. A name that resolves is judged again at connect time (lib/server/outbound), which is what counts.
 */
export function decideUrl(
  text: string,
  policy: OutboundPolicy,
  local: (address: string) => boolean,
): AddressRefusal | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "not an address";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "not an address";
  const host = bareHost(url.hostname);
  if (ipaddr.isValid(host)) return decideAddress(host, urlPort(url), policy, local);
  return nameRefusal(host);
}

export const OUTBOUND_REFUSED = "refused by the outbound policy";

export const refusalText = (reason: AddressRefusal): string => `${OUTBOUND_REFUSED} (${reason})`;
