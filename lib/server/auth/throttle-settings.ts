import type { SignInPolicies } from "@/lib/auth/sign-in-counters";
import { env } from "../env";

// Sign-in throttle settings, derived once from the validated environment (lib/server/env.ts). The defaults are the
// production policy; the tests shorten the delays so a whole lockout runs in seconds.

export type ThrottleSettings = { policies: SignInPolicies; trustedProxies: number };

let cached: ThrottleSettings | undefined;

export function signInThrottleSettings(): ThrottleSettings {
  if (cached) return cached;
  const e = env();
  const baseMs = e.RECEIPT_SIGNIN_BACKOFF_MS;
  const maxMs = Math.max(e.RECEIPT_SIGNIN_BACKOFF_MAX_MS, baseMs);
  const freeAttempts = e.RECEIPT_SIGNIN_FREE_ATTEMPTS;
  cached = {
    policies: {
      client: { freeAttempts, baseMs, maxMs },
      address: { freeAttempts: e.RECEIPT_SIGNIN_ADDRESS_FREE_ATTEMPTS, baseMs, maxMs },
      // The account's cap is short, and never longer than a single client's.
      account: {
        freeAttempts,
        baseMs,
        maxMs: Math.max(Math.min(e.RECEIPT_SIGNIN_ACCOUNT_MAX_MS, maxMs), baseMs),
      },
    },
    trustedProxies: e.RECEIPT_TRUST_PROXY,
  };
  return cached;
}
