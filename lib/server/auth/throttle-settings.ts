import type { BackoffPolicy } from "@/lib/auth/sign-in-backoff";
import { env } from "../env";

// Sign-in throttle settings, derived once from the validated environment (lib/server/env.ts). The defaults are the
// production policy; the tests shorten the delays so a whole lockout runs in seconds.

export type ThrottleSettings = { account: BackoffPolicy; address: BackoffPolicy; trustedProxies: number };

let cached: ThrottleSettings | undefined;

export function signInThrottleSettings(): ThrottleSettings {
  if (cached) return cached;
  const e = env();
  const delays = {
    baseMs: e.RECEIPT_SIGNIN_BACKOFF_MS,
    maxMs: Math.max(e.RECEIPT_SIGNIN_BACKOFF_MAX_MS, e.RECEIPT_SIGNIN_BACKOFF_MS),
  };
  cached = {
    account: { freeAttempts: e.RECEIPT_SIGNIN_FREE_ATTEMPTS, ...delays },
    address: { freeAttempts: e.RECEIPT_SIGNIN_ADDRESS_FREE_ATTEMPTS, ...delays },
    trustedProxies: e.RECEIPT_TRUST_PROXY,
  };
  return cached;
}
