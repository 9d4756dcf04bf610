import { z } from "zod";
import { ACCOUNT_BACKOFF, ADDRESS_BACKOFF, type BackoffPolicy } from "@/lib/auth/sign-in-backoff";

// Sign-in throttle settings from the environment, validated once. The defaults are the production policy; the
// tests shorten the delays so a whole lockout runs in seconds.
const count = (fallback: number) => z.coerce.number().int().min(1).max(1000).default(fallback);
const ms = (fallback: number) =>
  z.coerce
    .number()
    .int()
    .min(1)
    .max(60 * 60_000)
    .default(fallback);

const ZThrottleSettings = z.object({
  /** Failed sign-ins per account before the back-off starts. */
  RECEIPT_SIGNIN_FREE_ATTEMPTS: count(ACCOUNT_BACKOFF.freeAttempts),
  /** Failed sign-ins per client address (every account together) before the back-off starts. */
  RECEIPT_SIGNIN_ADDRESS_FREE_ATTEMPTS: count(ADDRESS_BACKOFF.freeAttempts),
  /** The first lock; doubled per further failure up to the maximum (at most an hour: no lock is for good). */
  RECEIPT_SIGNIN_BACKOFF_MS: ms(ACCOUNT_BACKOFF.baseMs),
  RECEIPT_SIGNIN_BACKOFF_MAX_MS: ms(ACCOUNT_BACKOFF.maxMs),
  /** How many proxies in front of the app append to X-Forwarded-For; 0: the header is not believed. */
  RECEIPT_TRUST_PROXY: z.coerce.number().int().min(0).max(10).default(0),
});

export type ThrottleSettings = { account: BackoffPolicy; address: BackoffPolicy; trustedProxies: number };

let cached: ThrottleSettings | undefined;

export function signInThrottleSettings(): ThrottleSettings {
  if (cached) return cached;
  const parsed = ZThrottleSettings.safeParse(process.env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`Invalid environment variable(s): ${problems.join("; ")}`);
  }
  const env = parsed.data;
  const delays = {
    baseMs: env.RECEIPT_SIGNIN_BACKOFF_MS,
    maxMs: Math.max(env.RECEIPT_SIGNIN_BACKOFF_MAX_MS, env.RECEIPT_SIGNIN_BACKOFF_MS),
  };
  cached = {
    account: { freeAttempts: env.RECEIPT_SIGNIN_FREE_ATTEMPTS, ...delays },
    address: { freeAttempts: env.RECEIPT_SIGNIN_ADDRESS_FREE_ATTEMPTS, ...delays },
    trustedProxies: env.RECEIPT_TRUST_PROXY,
  };
  return cached;
}
