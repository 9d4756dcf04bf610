import { clientAddressKey } from "@/lib/auth/client-address";
import {
  type AttemptCount,
  afterSuccess,
  type BackoffPolicy,
  decideAttempt,
  FORGET_FAILURES_AFTER_MS,
  retryAfterSeconds,
} from "@/lib/auth/sign-in-backoff";
import { deleteStaleSignInCounts, updateSignInCounts } from "../db/sign-in-throttle";
import { ApiError, type ApiIssue } from "../http/api-error";
import { signInThrottleSettings } from "./throttle-settings";

/** 429 too_many_attempts, with Retry-After in whole seconds. */
export class TooManyAttempts extends ApiError {
  constructor(
    readonly retryAfterMs: number,
    issues: ApiIssue[],
  ) {
    super(
      429,
      "too_many_attempts",
      `too many failed sign-ins; try again in ${retryAfterSeconds(retryAfterMs)} s`,
      issues,
    );
  }

  override toResponse(): Response {
    const response = super.toResponse();
    response.headers.set("retry-after", String(retryAfterSeconds(this.retryAfterMs)));
    return response;
  }
}

type Counter = { key: string; policy: BackoffPolicy; issuePath: string };

type AttemptOutcome = {
  refused: { counter: Counter; retryAfterMs: number }[];
  counted: Map<string, AttemptCount | null> | null;
};

/** One sign-in attempt, counted as failed until `succeeded()` says otherwise. */
export type SignInAttempt = { succeeded: () => Promise<void>; failed: () => void };

/**
 * Counts a sign-in attempt against the account and the client address before the password is checked, or refuses
 * it with 429 while either is locked — the right password too, or the lock would be no throttle. Unknown usernames
 * are counted like known ones, so the throttle does not tell which exist.
 */
export async function beginSignInAttempt(username: string, request: Request): Promise<SignInAttempt> {
  const settings = signInThrottleSettings();
  const client = clientAddressKey(request.headers.get("x-forwarded-for"), settings.trustedProxies);
  const account: Counter = {
    key: `account:${username}`,
    policy: settings.account,
    issuePath: "$.username",
  };
  const address: Counter = { key: `address:${client}`, policy: settings.address, issuePath: "$" };
  const counters = [account, address];

  const outcome = await updateSignInCounts<AttemptOutcome>(
    counters.map((counter) => counter.key),
    (counts, now) => {
      const decisions = counters.map((counter) => ({
        counter,
        decision: decideAttempt(counts.get(counter.key) ?? null, counter.policy, now),
      }));
      const refused = decisions.flatMap(({ counter, decision }) =>
        decision.allowed ? [] : [{ counter, retryAfterMs: decision.retryAfterMs }],
      );
      if (refused.length > 0) return { result: { refused, counted: null }, write: null };
      const counted = new Map<string, AttemptCount | null>(
        decisions.map(({ counter, decision }) => [counter.key, decision.allowed ? decision.next : null]),
      );
      return { result: { refused, counted }, write: counted };
    },
  );

  if (!outcome.counted) {
    const retryAfterMs = Math.max(...outcome.refused.map((r) => r.retryAfterMs));
    console.warn(
      `receipt: sign-in refused while locked: user=${username} client=${client} retry_after_s=${retryAfterSeconds(retryAfterMs)}`,
    );
    throw new TooManyAttempts(
      retryAfterMs,
      outcome.refused.map(({ counter }) => ({
        path: counter.issuePath,
        code: "too_many_attempts",
        message:
          counter === account
            ? "this account is locked for a while"
            : "this client address is locked for a while",
      })),
    );
  }

  const counted = outcome.counted;
  return {
    // The account's count starts again; the address keeps the failures of others, less this attempt.
    succeeded: () =>
      updateSignInCounts([account.key, address.key], (counts) => {
        const addressCount = counts.get(address.key);
        return {
          result: undefined,
          write: new Map([
            [account.key, null],
            [address.key, addressCount ? afterSuccess(addressCount, address.policy) : null],
          ]),
        };
      }),
    failed: () => {
      const failures = (counter: Counter) => counted.get(counter.key)?.failures ?? 0;
      const locked = (counter: Counter) => {
        const until = counted.get(counter.key)?.lockedUntil;
        return until ? retryAfterSeconds(until.getTime() - Date.now()) : 0;
      };
      // Never the password: the username (validated to [A-Za-z0-9._-]), the client key and the counts.
      console.warn(
        `receipt: sign-in failed: user=${username} client=${client} account_failures=${failures(account)} ` +
          `address_failures=${failures(address)} locked_s=${Math.max(locked(account), locked(address))}`,
      );
      void deleteStaleSignInCounts(new Date(Date.now() - FORGET_FAILURES_AFTER_MS)).catch(() => {});
    },
  };
}
