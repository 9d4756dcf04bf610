import { type RetryPolicy, retryDelay } from "./retry";

export type RoundPolicy = RetryPolicy & { maxAttempts: number };

/**
 * The sink's attempts at the batch at the head of its queue. A retryable answer puts the next attempt off (the
 * server's Retry-After, or backoff); after `maxAttempts` the round ends, and the next one waits at least `maxDelayMs`.
 * A final answer, delivered or refused, starts afresh.
 */
export class RetryRound {
  /** No POST before this time (ms since the epoch). */
  notBefore = 0;
  private attempts = 0;
  private lastStatus?: number;
  /** The round that ran out, until a final answer: what a flush and the exit warning report. */
  private ended?: { attempts: number; status?: number };

  constructor(private readonly policy: RoundPolicy) {}

  /** A retryable answer (no status: Receipt did not answer): true while the round may try again. */
  retry(status: number | undefined, retryAfter: number | undefined): boolean {
    this.attempts++;
    this.lastStatus = status;
    const delay = retryDelay(this.attempts, retryAfter, this.policy);
    if (this.attempts < this.policy.maxAttempts) {
      this.notBefore = Date.now() + delay;
      return true;
    }
    this.ended = { attempts: this.attempts, status };
    this.notBefore = Date.now() + Math.max(delay, this.policy.maxDelayMs);
    this.attempts = 0;
    return false;
  }

  /** The batch was delivered or refused: the next one goes at once. */
  answered(): void {
    this.attempts = 0;
    this.notBefore = 0;
    this.ended = undefined;
  }

  /** The status to report: the last answer of the round that ran out, else the last heard; undefined: no answer. */
  get status(): number | undefined {
    return this.ended?.status ?? this.lastStatus;
  }

  /** The attempts of the round that ran out, or of the one under way. */
  get attemptsMade(): number {
    return this.ended?.attempts ?? this.attempts;
  }
}
