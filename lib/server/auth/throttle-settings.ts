import { type SignInPolicies, signInPolicies } from "@/lib/auth/sign-in-counters";
import { env } from "../env";

// Sign-in throttle settings, derived once from the validated environment (lib/server/env.ts). The defaults are the
// production policy; the tests shorten the delays so a whole lockout runs in seconds.

export type ThrottleSettings = { policies: SignInPolicies; trustedProxies: number };

let cached: ThrottleSettings | undefined;

export function signInThrottleSettings(): ThrottleSettings {
  if (cached) return cached;
  const e = env();
  cached = {
    policies: signInPolicies({
      freeAttempts: e.RECEIPT_SIGNIN_FREE_ATTEMPTS,
      addressFreeAttempts: e.RECEIPT_SIGNIN_ADDRESS_FREE_ATTEMPTS,
      baseMs: e.RECEIPT_SIGNIN_BACKOFF_MS,
      maxMs: e.RECEIPT_SIGNIN_BACKOFF_MAX_MS,
      accountMaxMs: e.RECEIPT_SIGNIN_ACCOUNT_MAX_MS,
    }),
    trustedProxies: e.RECEIPT_TRUST_PROXY,
  };
  return cached;
}
