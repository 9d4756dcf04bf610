import { isIP } from "node:net";

/**
 * The client's address as the sign-in throttle and the sessions list may believe it, or null when none can be.
 * Next.js route handlers do not see the socket's address, and it fills `X-Forwarded-For` from the socket only when
 * the client sent none, so the header proves nothing on its own: a client can write any address there. With
 * `trustedProxies` = 0 (no proxy in front) no address is believed. With N trusted proxies, each appending the address
 * it was connected from, the client is the N-th entry from the right; entries further left came from the client and
 * are ignored, and a missing or malformed entry is no address (never one key shared by every such client).
 */
export function clientAddress(forwardedFor: string | null, trustedProxies: number): string | null {
  if (trustedProxies <= 0) return null;
  const hops = (forwardedFor ?? "")
    .split(",")
    .map((hop) => hop.trim())
    .filter(Boolean);
  const entry = hops[hops.length - trustedProxies];
  return entry === undefined ? null : normaliseAddress(entry);
}

/** A bare IP address from one X-Forwarded-For entry ("1.2.3.4", "1.2.3.4:5678", "[::1]:80", "::ffff:1.2.3.4"). */
function normaliseAddress(entry: string): string | null {
  let address = entry;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed?.[1]) address = bracketed[1];
  else if (/^[\d.]+:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(":"));
  address = address.toLowerCase();
  if (address.startsWith("::ffff:") && isIP(address.slice(7)) === 4) address = address.slice(7);
  return isIP(address) ? address : null;
}
