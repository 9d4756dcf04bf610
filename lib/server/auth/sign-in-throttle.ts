import { clientAddress } from "@/lib/auth/client-address";
import { newDeviceId } from "@/lib/auth/known-device";
import {
  type AttemptCount,
  afterSuccess,
  decideAttempt,
  FORGET_FAILURES_AFTER_MS,
  retryAfterSeconds,
} from "@/lib/auth/sign-in-backoff";
import { LOCK_MESSAGE, type SignInCounter, signInCounters } from "@/lib/auth/sign-in-counters";
import { deleteStaleSignInCounts, updateSignInCounts } from "../db/sign-in-throttle";
import { ApiError, type ApiIssue } from "../http/api-error";
import { recognisedDevice } from "./known-devices";
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

type AttemptOutcome = {
  refused: { counter: SignInCounter; retryAfterMs: number }[];
  counted: Map<string, AttemptCount | null> | null;
};

/** One sign-in attempt, counted as failed until `succeeded()` says otherwise. */
export type SignInAttempt = {
  /** The device id to put in this browser's known-device cookie once it signed in: its own when it had one. */
  deviceId: string;
  succeeded: () => Promise<void>;
  failed: () => void;
};

/**
 * Counts a sign-in attempt on the counts lib/auth/sign-in-counters.ts names for it before the password is checked,
 * or refuses it with 429 while any of them is locked: the right password too, or the lock would be no throttle.
 * Unknown usernames are counted like known ones, so the throttle does not tell which exist.
 */
export async function beginSignInAttempt(username: string, request: Request): Promise<SignInAttempt> {
  const settings = signInThrottleSettings();
  const address = clientAddress(request.headers.get("x-forwarded-for"), settings.trustedProxies);
  const knownDevice = await recognisedDevice(request.headers.get("cookie"), username);
  const counters = signInCounters(username, { address, knownDevice }, settings.policies);
  const keys = counters.map((counter) => counter.key);
  // Never the password: the username (validated to [A-Za-z0-9._-]), the address and whether the device is known.
  const who = `user=${username} client=${address ?? "unknown"} device=${knownDevice ? "known" : "none"}`;

  const outcome = await updateSignInCounts<AttemptOutcome>(keys, (counts, now) => {
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
  });

  if (!outcome.counted) {
    const retryAfterMs = Math.max(...outcome.refused.map((r) => r.retryAfterMs));
    console.warn(
      `receipt: sign-in refused while locked: ${who} locked=${outcome.refused.map((r) => r.counter.scope).join(",")} ` +
        `retry_after_s=${retryAfterSeconds(retryAfterMs)}`,
    );
    throw new TooManyAttempts(
      retryAfterMs,
      outcome.refused.map(({ counter }) => ({
        path: counter.issuePath,
        code: "too_many_attempts",
        message: LOCK_MESSAGE[counter.scope],
      })),
    );
  }

  const counted = outcome.counted;
  return {
    deviceId: knownDevice ?? newDeviceId(),
    // This client's counts at the account start again; an address keeps the failures of others, less this attempt.
    succeeded: () =>
      updateSignInCounts(keys, (counts) => ({
        result: undefined,
        write: new Map(
          counters.map((counter) => {
            const count = counts.get(counter.key);
            const after =
              counter.onSuccess === "take_back" && count ? afterSuccess(count, counter.policy) : null;
            return [counter.key, after];
          }),
        ),
      })),
    failed: () => {
      const failures = counters.map(
        (counter) => `${counter.scope}:${counted.get(counter.key)?.failures ?? 0}`,
      );
      const lockedSeconds = counters.map((counter) => {
        const until = counted.get(counter.key)?.lockedUntil;
        return until ? retryAfterSeconds(until.getTime() - Date.now()) : 0;
      });
      console.warn(
        `receipt: sign-in failed: ${who} failures=${failures.join(",")} locked_s=${Math.max(...lockedSeconds)}`,
      );
      void deleteStaleSignInCounts(new Date(Date.now() - FORGET_FAILURES_AFTER_MS)).catch(() => {});
    },
  };
}
