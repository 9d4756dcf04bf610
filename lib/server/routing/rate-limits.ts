// Documented per-target send rates. Each instance keeps its own buckets here (pure), and takes a token from the
// bucket every instance shares (lib/server/db/routing-rate-buckets.ts) before it sends.
//
// - Slack incoming webhooks: 1 message per second per webhook URL, short bursts allowed
//   (https://api.slack.com/docs/rate-limits#incoming-webhooks).
// - PagerDuty Events API v2: 120 events per minute per integration (routing) key.
// - Generic webhooks: no limit.

export type RateLimit = { key: string; perSecond: number; burst: number };

const SLACK = { perSecond: 1, burst: 3 };
const PAGERDUTY = { perSecond: 2, burst: 10 };

/** The bucket a delivery draws from, or null for an unlimited target. */
export function rateLimitFor(targetType: string, url: string, body: string): RateLimit | null {
  if (targetType === "slack") return { key: `slack ${url}`, ...SLACK };
  if (targetType === "pagerduty") return { key: `pagerduty ${routingKeyOf(body) ?? url}`, ...PAGERDUTY };
  return null;
}

function routingKeyOf(body: string): string | null {
  try {
    const key = (JSON.parse(body) as { routing_key?: unknown }).routing_key;
    return typeof key === "string" ? key : null;
  } catch {
    return null;
  }
}

/** A token bucket: `burst` tokens at most, refilled at `perSecond`. Time is passed in, so it is testable. */
export class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(
    private readonly limit: Pick<RateLimit, "perSecond" | "burst">,
    nowMs: number,
  ) {
    this.tokens = limit.burst;
    this.at = nowMs;
  }

  private refill(nowMs: number): void {
    const elapsed = Math.max(0, nowMs - this.at);
    this.tokens = Math.min(this.limit.burst, this.tokens + (elapsed * this.limit.perSecond) / 1000);
    this.at = nowMs;
  }

  /** Whole tokens available now. */
  available(nowMs: number): number {
    this.refill(nowMs);
    return Math.floor(this.tokens);
  }

  /** Takes one token if there is one. */
  take(nowMs: number): boolean {
    this.refill(nowMs);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Milliseconds until a token is available (0 when one is). */
  waitMs(nowMs: number): number {
    this.refill(nowMs);
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) * 1000) / this.limit.perSecond);
  }
}

/** The buckets of one process, created on first use. */
export class RateLimiter {
  private readonly buckets = new Map<string, TokenBucket>();

  private bucket(limit: RateLimit, nowMs: number): TokenBucket {
    let bucket = this.buckets.get(limit.key);
    if (!bucket) {
      bucket = new TokenBucket(limit, nowMs);
      this.buckets.set(limit.key, bucket);
    }
    return bucket;
  }

  available(limit: RateLimit | null, nowMs: number): number {
    return limit ? this.bucket(limit, nowMs).available(nowMs) : Number.POSITIVE_INFINITY;
  }

  take(limit: RateLimit | null, nowMs: number): boolean {
    return limit ? this.bucket(limit, nowMs).take(nowMs) : true;
  }

  waitMs(limit: RateLimit | null, nowMs: number): number {
    return limit ? this.bucket(limit, nowMs).waitMs(nowMs) : 0;
  }
}
