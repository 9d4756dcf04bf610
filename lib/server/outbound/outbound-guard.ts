// The one guard every outbound send goes through (lib/server/routing/http-post.ts): the URL is judged before the
// request, and each address a name resolves to is judged again at connect time, inside the socket's own lookup, so a
// name that resolves to a public address for the check and to 127.0.0.1 for the connection (DNS rebinding) is
// refused too. Readers see "refused by the outbound policy (…)", never the socket error behind it.
import dns, { type LookupAddress, type LookupAllOptions, type LookupOneOptions } from "node:dns";
import os from "node:os";
import {
  type AddressRefusal,
  type ClosedEndpoint,
  decideAddress,
  nameRefusal,
  type OutboundPolicy,
  parseOutboundAllow,
  refusalText,
} from "@/lib/outbound/address-policy";
import { type TargetRefusal, targetRefusal } from "@/lib/outbound/target-rules";
import { env } from "../env";

export class OutboundRefusedError extends Error {
  readonly code = "EOUTBOUNDPOLICY";
  constructor(readonly reason: AddressRefusal) {
    super(refusalText(reason));
  }
}

let policy: OutboundPolicy | undefined;

/**
 * The policy of this process: the admin's allowed ranges, and the endpoints closed whatever is allowed. Built on first
 * use, when Next.js has set PORT to the port it listens on.
 */
export function outboundPolicy(): OutboundPolicy {
  policy ??= {
    allow: parseOutboundAllow(env().RECEIPT_OUTBOUND_ALLOW),
    closed: closedEndpoints(process.env.PORT, process.env.DATABASE_URL),
  };
  return policy;
}

/** For tests that change the environment between cases in one process. */
export function forgetOutboundPolicy(): void {
  policy = undefined;
}

function closedEndpoints(appPort: string | undefined, databaseUrl: string | undefined): ClosedEndpoint[] {
  const closed: ClosedEndpoint[] = [];
  const port = Number(appPort);
  if (Number.isInteger(port) && port > 0)
    closed.push({ reason: "this app's own address", port, addresses: [] });
  const database = databaseEndpoint(databaseUrl);
  if (database) closed.push({ reason: "the database's address", ...database });
  return closed;
}

/** The database's port, on its literal address or (a name) on any of this machine's addresses. */
function databaseEndpoint(text: string | undefined): Omit<ClosedEndpoint, "reason"> | null {
  if (!text) return null;
  try {
    const url = new URL(text);
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const addresses = /^[\d.]+$|:/.test(host) ? [host] : [];
    return { port: url.port ? Number(url.port) : 5432, addresses };
  } catch {
    return null;
  }
}

let localAddresses: { at: number; addresses: Set<string> } | undefined;

/** This machine's own addresses (every interface), re-read at most every ten seconds. */
export function isLocalAddress(address: string): boolean {
  const now = Date.now();
  if (!localAddresses || now - localAddresses.at > 10_000) {
    const addresses = new Set<string>();
    for (const entries of Object.values(os.networkInterfaces()))
      for (const entry of entries ?? []) addresses.add(entry.address.replace(/%.*$/, ""));
    localAddresses = { at: now, addresses };
  }
  return localAddresses.addresses.has(address);
}

/** A target's URL against the policy and the vendor-host rules, before it is saved or sent to. */
export function refuseTarget(target: { type: string; url: string }): TargetRefusal | null {
  return targetRefusal(target, outboundPolicy(), isLocalAddress);
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** Resolves every address of a name (dns.lookup with `all`; a test passes a resolver that rebinds). */
export type ResolveAll = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const resolveWithSystem: ResolveAll = (hostname, options, callback) =>
  dns.lookup(hostname, options, callback);

/**
 * A `lookup` for one connection to `port` (node:net calls it for a name, never for a literal address): resolves every
 * address, and refuses the connection if any of them is refused, so a resolver cannot slip one past in a list.
 */
export function guardedLookup(port: number, resolve: ResolveAll = resolveWithSystem) {
  return (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void => {
    const byName = nameRefusal(hostname);
    if (byName) {
      callback(new OutboundRefusedError(byName), "");
      return;
    }
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, "");
        return;
      }
      const current = outboundPolicy();
      for (const { address } of addresses) {
        const refused = decideAddress(address, port, current, isLocalAddress);
        if (refused) {
          callback(new OutboundRefusedError(refused), "");
          return;
        }
      }
      const first = addresses[0];
      if (options.all) callback(null, addresses);
      else if (first) callback(null, first.address, first.family);
      else callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), "");
    });
  };
}
