import type { BackoffPolicy } from "./sign-in-backoff";

/**
 * Which counts a sign-in attempt goes to. No count is shared by every client, so no client can lock out the others:
 *
 * - A browser with a valid known-device cookie for the username (it signed in to that account before) is counted on
 *   that device alone. An attacker hammering the account from elsewhere cannot slow it down.
 * - Any other attempt is counted on the account over every such client, with a short cap (`account`), so guesses
 *   spread over many addresses slow down while the owner still gets in after at most that cap.
 * - When the client address is known (from a trusted proxy), also on the account from that address (`client`:
 *   the long back-off of a single guesser) and on the address over every account (`address`: password spraying).
 *   An address's counts slow that address only. When no address can be believed, there are no address counts.
 */
export type SignInPolicies = { client: BackoffPolicy; address: BackoffPolicy; account: BackoffPolicy };

/**
 * The policies from the settings (RECEIPT_SIGNIN_*): one first lock and maximum for all, the account's own shorter cap
 * kept between the first lock and the maximum.
 */
export function signInPolicies(settings: {
  freeAttempts: number;
  addressFreeAttempts: number;
  baseMs: number;
  maxMs: number;
  accountMaxMs: number;
}): SignInPolicies {
  const { freeAttempts, baseMs } = settings;
  const maxMs = Math.max(settings.maxMs, baseMs);
  return {
    client: { freeAttempts, baseMs, maxMs },
    address: { freeAttempts: settings.addressFreeAttempts, baseMs, maxMs },
    account: { freeAttempts, baseMs, maxMs: Math.max(Math.min(settings.accountMaxMs, maxMs), baseMs) },
  };
}

/** Who is signing in, as far as the server can tell. */
export type SignInClient = {
  /** The client's address, or null when none can be believed (no trusted proxy, or it named none). */
  address: string | null;
  /** The device id of a valid known-device cookie for this username, or null. */
  knownDevice: string | null;
};

export type CounterScope = "device" | "account_address" | "address" | "account";

export type SignInCounter = {
  scope: CounterScope;
  key: string;
  policy: BackoffPolicy;
  /** Where a 429 points: the account's counts at the username, the address's at the whole request. */
  issuePath: "$.username" | "$";
  /**
   * What a successful sign-in does to the count: `clear` it (the failures were this client's at this account), or
   * `take_back` the attempt alone (an address's count holds other accounts' failures too).
   */
  onSuccess: "clear" | "take_back";
};

export function signInCounters(
  username: string,
  client: SignInClient,
  policies: SignInPolicies,
): SignInCounter[] {
  if (client.knownDevice) {
    return [
      {
        scope: "device",
        key: `device:${username}@${client.knownDevice}`,
        policy: policies.client,
        issuePath: "$.username",
        onSuccess: "clear",
      },
    ];
  }
  const account: SignInCounter = {
    scope: "account",
    key: `account:${username}`,
    policy: policies.account,
    issuePath: "$.username",
    onSuccess: "clear",
  };
  if (!client.address) return [account];
  return [
    {
      scope: "account_address",
      key: `account-address:${username}@${client.address}`,
      policy: policies.client,
      issuePath: "$.username",
      onSuccess: "clear",
    },
    {
      scope: "address",
      key: `address:${client.address}`,
      policy: policies.address,
      issuePath: "$",
      onSuccess: "take_back",
    },
    account,
  ];
}

/** The message of a 429's issue, per count that refused it. */
export const LOCK_MESSAGE: Record<CounterScope, string> = {
  device: "this account is locked on this browser for a while",
  account_address: "this account is locked from this client address for a while",
  address: "this client address is locked for a while",
  account: "this account is locked for a short while (a browser that signed in to it before is not)",
};
