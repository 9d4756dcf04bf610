/**
 * Growing back-off for failed sign-ins, kept per counter (lib/auth/sign-in-counters.ts says which counters an attempt
 * goes to): the first `freeAttempts` failures cost nothing, then each one locks the key for `baseMs`, doubled per
 * further failure up to `maxMs`. The cap is what keeps an attacker from locking anyone out for good.
 */
export type BackoffPolicy = { freeAttempts: number; baseMs: number; maxMs: number };

/**
 * Production defaults. One client at one account (a client address, or a browser's known-device cookie): five free
 * tries, then 1 s, 2 s, 4 s … at most 5 min, so a single guesser slows down to one guess per 5 minutes.
 */
export const CLIENT_BACKOFF: BackoffPolicy = { freeAttempts: 5, baseMs: 1000, maxMs: 5 * 60_000 };
/** One client address over every account: twenty free tries, then the same delays (password spraying). */
export const ADDRESS_BACKOFF: BackoffPolicy = { freeAttempts: 20, baseMs: 1000, maxMs: 5 * 60_000 };
/**
 * One account over every client without a known-device cookie (guesses spread over many addresses, or any guess when
 * no address can be believed): five free tries, then 1 s, 2 s … at most 30 s. The short cap is what an attacker
 * hammering the account can cost its owner: the right password gets in after at most 30 s.
 */
export const ACCOUNT_BACKOFF: BackoffPolicy = { freeAttempts: 5, baseMs: 1000, maxMs: 30_000 };

/** A count nobody has added to for this long starts again from zero. */
export const FORGET_FAILURES_AFTER_MS = 24 * 60 * 60_000;

/** How long a key stays locked after its `failures`-th counted attempt. */
export function lockMsAfter(failures: number, policy: BackoffPolicy): number {
  const over = failures - policy.freeAttempts;
  if (over <= 0) return 0;
  // 2^over overflows to Infinity long before `over` stops fitting an integer; the cap bounds it either way.
  return Math.min(policy.baseMs * 2 ** Math.min(over - 1, 52), policy.maxMs);
}

/** What the store keeps per key. */
export type AttemptCount = { failures: number; lockedUntil: Date | null; lastAttemptAt: Date };

export type AttemptDecision =
  | { allowed: false; retryAfterMs: number }
  | { allowed: true; next: AttemptCount };

/**
 * Whether one more attempt may be checked now and, if so, the count to store before checking it. The attempt is
 * counted as failed up front, so parallel guesses cannot all slip through before the first failure is written;
 * a success then takes it back (`afterSuccess`).
 */
export function decideAttempt(
  current: AttemptCount | null,
  policy: BackoffPolicy,
  now: Date,
  forgetAfterMs = FORGET_FAILURES_AFTER_MS,
): AttemptDecision {
  if (current?.lockedUntil && current.lockedUntil > now) {
    return { allowed: false, retryAfterMs: current.lockedUntil.getTime() - now.getTime() };
  }
  const forgotten = !current || now.getTime() - current.lastAttemptAt.getTime() > forgetAfterMs;
  const failures = (forgotten ? 0 : current.failures) + 1;
  const lockMs = lockMsAfter(failures, policy);
  return {
    allowed: true,
    next: { failures, lockedUntil: lockMs > 0 ? new Date(now.getTime() + lockMs) : null, lastAttemptAt: now },
  };
}

/**
 * The count after an attempt it already holds turned out right: that attempt is taken back; a lock stays only while
 * the remaining failures still earn one (others may be failing from the same address meanwhile).
 */
export function afterSuccess(current: AttemptCount, policy: BackoffPolicy): AttemptCount {
  const failures = Math.max(current.failures - 1, 0);
  return {
    failures,
    lockedUntil: lockMsAfter(failures, policy) > 0 ? current.lockedUntil : null,
    lastAttemptAt: current.lastAttemptAt,
  };
}

/** Retry-After is whole seconds: round up, so a client that waits exactly that long is never refused again. */
export const retryAfterSeconds = (retryAfterMs: number) => Math.max(1, Math.ceil(retryAfterMs / 1000));
