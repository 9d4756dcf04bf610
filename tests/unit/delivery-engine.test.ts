// The delivery engine's pure parts: per-target lanes, token buckets, Retry-After, what an attempt's answer decides.
import { describe, expect, it } from "vitest";
import { decideAttempt } from "@/lib/server/routing/attempt-outcome";
import {
  DeliveryLanes,
  type LaneItem,
  mayHaveLeftSome,
  pickNewDeliveries,
  QUEUE_DEPTH,
  QUICK_MS,
} from "@/lib/server/routing/delivery-lanes";
import { type RateLimit, RateLimiter, rateLimitFor, TokenBucket } from "@/lib/server/routing/rate-limits";
import { retryAfterMs } from "@/lib/server/routing/retry-after";

const NOW = 1_764_496_800_000;
type Item = LaneItem & { id: number };
const item = (id: number, channel: string, targetIndex = 0, rateLimit: RateLimit | null = null): Item => ({
  id,
  channel,
  targetIndex,
  rateLimit,
});
const always = () => true;
const unlimited = () => Number.POSITIVE_INFINITY;

describe("delivery lanes", () => {
  it("starts at most the per-target cap on one target; another target starts at once", () => {
    const lanes = new DeliveryLanes<Item>(2, 100);
    for (let i = 0; i < 5; i++) lanes.add(item(i, "slow"));
    lanes.add(item(9, "fast"));
    expect(
      lanes
        .startable(NOW, always)
        .map((d) => d.id)
        .sort(),
    ).toEqual([0, 1, 9]);
    expect(lanes.startable(NOW, always)).toEqual([]);
    lanes.finished(item(0, "slow"), NOW);
    expect(lanes.startable(NOW, always).map((d) => d.id)).toEqual([2]);
    expect(lanes.size).toBe(5);
  });

  it("the claim gives a saturated or paused target nothing and an unknown target the full cap", () => {
    const lanes = new DeliveryLanes<Item>(4, 10);
    for (let i = 0; i < 4; i++) lanes.add(item(i, "hung"));
    lanes.add(item(5, "half"));
    lanes.add(item(6, "paused", 1));
    lanes.pause(item(6, "paused", 1), NOW + 2000);
    const byTarget = Object.fromEntries(
      lanes.allowances(NOW, unlimited).map((a) => [`${a.channel}/${a.targetIndex}`, a.free]),
    );
    expect(byTarget).toEqual({ "hung/0": 0, "half/0": 3, "paused/1": 0 });
    expect(lanes.freeSlots()).toBe(5);
    // After the pause the target gets its full cap again (not listed).
    expect(lanes.allowances(NOW + 2000, unlimited).map((a) => a.channel)).not.toContain("paused");
  });

  it("a pause hands back the target's queued deliveries and holds the rest until it ends", () => {
    const lanes = new DeliveryLanes<Item>(1, 10);
    lanes.add(item(1, "t"));
    lanes.add(item(2, "t"));
    lanes.add(item(3, "t"));
    expect(lanes.startable(NOW, always).map((d) => d.id)).toEqual([1]);
    expect(lanes.pause(item(1, "t"), NOW + 2000).map((d) => d.id)).toEqual([2, 3]);
    lanes.finished(item(1, "t"), NOW);
    expect(lanes.size).toBe(0);
    lanes.add(item(4, "t"));
    expect(lanes.startable(NOW + 1999, always)).toEqual([]);
    expect(lanes.nextStartAt(NOW + 1000, () => 0)).toBe(NOW + 2000);
    expect(lanes.startable(NOW + 2000, always).map((d) => d.id)).toEqual([4]);
  });

  it("a quick target may queue beyond its cap; once a send hangs, what waits beyond the cap is shed", () => {
    const lanes = new DeliveryLanes<Item>(2, 100);
    const quick = item(1, "q");
    lanes.add(quick);
    lanes.startable(NOW, always);
    expect(lanes.allowances(NOW, unlimited)).toEqual([{ channel: "q", targetIndex: 0, free: 1 }]);
    lanes.finished(quick, NOW + 5);
    expect(lanes.allowances(NOW + 5, unlimited)).toEqual([
      { channel: "q", targetIndex: 0, free: 2 * QUEUE_DEPTH },
    ]);
    for (let i = 10; i < 16; i++) lanes.add(item(i, "q"));
    expect(lanes.startable(NOW + 5, always).map((d) => d.id)).toEqual([10, 11]);
    expect(lanes.shed(NOW + 5)).toEqual([]);
    // The two in flight have run past QUICK_MS: the four waiting beyond the cap go back.
    const later = NOW + 5 + QUICK_MS;
    expect(lanes.shed(later).map((d) => d.id)).toEqual([12, 13, 14, 15]);
    expect(lanes.size).toBe(2);
    expect(lanes.allowances(later, unlimited)).toEqual([{ channel: "q", targetIndex: 0, free: 0 }]);
  });

  it("a busy quick target is refilled in batches: a claim after a send only once its queue is down to one cap", () => {
    const lanes = new DeliveryLanes<Item>(2, 100);
    expect(lanes.needsRefill()).toBe(true); // nothing held: a claim finds whatever is due
    const held = Array.from({ length: 8 }, (_, i) => item(i, "q"));
    for (const delivery of held) lanes.add(delivery);
    lanes.startable(NOW, always); // 2 in flight, 6 waiting
    expect(lanes.needsRefill()).toBe(false);
    lanes.finished(held[0] as Item, NOW + 1);
    lanes.startable(NOW + 1, always); // 2 in flight, 5 waiting
    expect(lanes.needsRefill()).toBe(false);
    for (const done of held.slice(1, 3)) lanes.finished(done, NOW + 2);
    lanes.startable(NOW + 2, always); // 2 in flight, 3 waiting
    expect(lanes.needsRefill()).toBe(false);
    lanes.finished(held[3] as Item, NOW + 3);
    lanes.startable(NOW + 3, always); // 2 in flight, 2 waiting: down to one cap
    expect(lanes.needsRefill()).toBe(true);
    // Another target down to its last cap's worth asks for a claim whatever a busier one holds.
    const other = new DeliveryLanes<Item>(2, 100);
    for (let i = 0; i < 8; i++) other.add(item(i, "busy"));
    other.add(item(20, "idle-soon"));
    other.startable(NOW, always);
    expect(other.needsRefill()).toBe(true);
  });

  it("a claim may have left due deliveries behind only when a target got all it was allowed, or nothing at all", () => {
    const at = (channel: string) => ({ channel, targetIndex: 0 });
    // Two of an unlisted target's four: nothing else of it was due.
    expect(mayHaveLeftSome([at("a"), at("a")], [], 4)).toBe(false);
    // All four of them: more may wait.
    expect(mayHaveLeftSome([at("a"), at("a"), at("a"), at("a")], [], 4)).toBe(true);
    // A listed allowance counts, not the cap: 3 of a quick target's 30 left nothing; 2 of 2 may have.
    expect(mayHaveLeftSome([at("q"), at("q"), at("q")], [{ ...at("q"), free: 30 }], 4)).toBe(false);
    expect(mayHaveLeftSome([at("b"), at("b")], [{ ...at("b"), free: 2 }], 4)).toBe(true);
    // A saturated or paused target (allowance 0) was not looked at, whatever the others got.
    expect(mayHaveLeftSome([at("a")], [{ ...at("hung"), free: 0 }], 4)).toBe(true);
    expect(mayHaveLeftSome([], [], 4)).toBe(false);
  });

  it("the global cap bounds what the claim may take", () => {
    const lanes = new DeliveryLanes<Item>(4, 3);
    lanes.add(item(1, "a"));
    lanes.add(item(2, "b"));
    expect(lanes.freeSlots()).toBe(1);
    lanes.add(item(3, "c"));
    expect(lanes.freeSlots()).toBe(0);
  });

  it("a rate-limited target gets no more than its tokens; a waiting one starts when a token comes", () => {
    const limiter = new RateLimiter();
    const slack = rateLimitFor("slack", "https://hooks.slack.test/T/B/X", "{}");
    const lanes = new DeliveryLanes<Item>(4, 100);
    for (let i = 0; i < 4; i++) lanes.add(item(i, "chat", 0, slack));
    const started = lanes.startable(NOW, (l) => limiter.take(l, NOW));
    expect(started).toHaveLength(3); // the burst
    for (const d of started) lanes.finished(d, NOW);
    expect(lanes.allowances(NOW, (l) => limiter.available(l, NOW))).toEqual([
      { channel: "chat", targetIndex: 0, free: 0 },
    ]);
    expect(lanes.nextStartAt(NOW, (l) => limiter.waitMs(l, NOW))).toBe(NOW + 1000);
    const later = NOW + 1000;
    expect(lanes.startable(later, (l) => limiter.take(l, later)).map((d) => d.id)).toEqual([3]);
  });
});

describe("new deliveries claimed by id", () => {
  const fresh = (id: number, channel: string, targetType = "webhook") => ({
    id: BigInt(id),
    channel,
    targetIndex: 0,
    targetType,
  });
  const notPaused = () => false;

  it("takes each target's share in order, the rest wait for room; unlisted targets get the per-target cap", () => {
    const picked = pickNewDeliveries(
      [fresh(1, "a"), fresh(2, "a"), fresh(3, "b"), fresh(4, "a"), fresh(5, "c")],
      10,
      [{ channel: "a", targetIndex: 0, free: 2 }],
      1,
      notPaused,
    );
    expect(picked.taken).toEqual([1n, 2n, 3n, 5n]);
    expect(picked.waiting.map((d) => d.id)).toEqual([4n]);
    expect(picked.elsewhere).toBe(false);
  });

  it("stops at the instance's free slots", () => {
    const picked = pickNewDeliveries([fresh(1, "a"), fresh(2, "b"), fresh(3, "c")], 2, [], 4, notPaused);
    expect(picked.taken).toEqual([1n, 2n]);
    expect(picked.waiting.map((d) => d.id)).toEqual([3n]);
  });

  it("leaves rate-limited kinds and paused targets to the due claim (it counts tokens and reads pauses)", () => {
    const picked = pickNewDeliveries(
      [fresh(1, "slack", "slack"), fresh(2, "pd", "pagerduty"), fresh(3, "paused"), fresh(4, "ok")],
      10,
      [{ channel: "paused", targetIndex: 0, free: 0 }],
      4,
      (d) => d.channel === "paused",
    );
    expect(picked).toEqual({ taken: [4n], waiting: [], elsewhere: true });
  });

  it("knows a lane's pause until it ends", () => {
    const lanes = new DeliveryLanes<Item>(2, 100);
    lanes.add(item(1, "a"));
    lanes.pause(item(1, "a"), NOW + 1000);
    expect(lanes.isPaused({ channel: "a", targetIndex: 0 }, NOW)).toBe(true);
    expect(lanes.isPaused({ channel: "a", targetIndex: 0 }, NOW + 1000)).toBe(false);
    expect(lanes.isPaused({ channel: "b", targetIndex: 0 }, NOW)).toBe(false);
  });
});

describe("rate limits", () => {
  it("Slack: 1 per second per webhook URL with a short burst; PagerDuty: 120/min per routing key", () => {
    expect(rateLimitFor("webhook", "http://x", "{}")).toBeNull();
    expect(rateLimitFor("slack", "https://a", "{}")).toMatchObject({ key: "slack https://a", perSecond: 1 });
    const pd = rateLimitFor("pagerduty", "https://events", JSON.stringify({ routing_key: "K1" }));
    expect(pd).toMatchObject({ key: "pagerduty K1", perSecond: 2 });
    expect((pd?.perSecond ?? 0) * 60).toBe(120);
  });

  it("a token bucket refills at its rate up to its burst", () => {
    const bucket = new TokenBucket({ perSecond: 2, burst: 3 }, NOW);
    expect([bucket.take(NOW), bucket.take(NOW), bucket.take(NOW), bucket.take(NOW)]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(bucket.waitMs(NOW)).toBe(500);
    expect(bucket.take(NOW + 499)).toBe(false);
    expect(bucket.take(NOW + 500)).toBe(true);
    expect(bucket.available(NOW + 60_000)).toBe(3);
  });
});

describe("Retry-After", () => {
  it("reads delay-seconds and HTTP-dates; ignores what is neither", () => {
    expect(retryAfterMs("2", NOW)).toBe(2000);
    expect(retryAfterMs(" 120 ", NOW)).toBe(120_000);
    expect(retryAfterMs(new Date(NOW + 5000).toUTCString(), NOW)).toBe(5000);
    expect(retryAfterMs(new Date(NOW - 5000).toUTCString(), NOW)).toBe(0);
    for (const bad of [null, undefined, "", "soon", "-1", "1.5", "2026-12-01"])
      expect(retryAfterMs(bad, NOW)).toBeNull();
  });
});

describe("an attempt's answer", () => {
  const policy = { backoffMs: 100, backoffMaxMs: 10_000 };
  const first = { attempts: 1, maxAttempts: 3 };
  const noJitter = () => 0.5;

  it("429 with Retry-After: retry not before it, and the target pauses until then", () => {
    const decided = decideAttempt(
      { ok: false, statusCode: 429, retryAfter: "2" },
      first,
      policy,
      NOW,
      noJitter,
    );
    expect(decided).toEqual({ status: "pending", nextAttemptMs: NOW + 2000, pauseTargetUntilMs: NOW + 2000 });
  });

  it("503 with an HTTP-date likewise; Retry-After is capped at the maximum backoff", () => {
    const date = new Date(NOW + 3000).toUTCString();
    expect(
      decideAttempt({ ok: false, statusCode: 503, retryAfter: date }, first, policy, NOW, noJitter),
    ).toEqual({
      status: "pending",
      nextAttemptMs: NOW + 3000,
      pauseTargetUntilMs: NOW + 3000,
    });
    const huge = decideAttempt(
      { ok: false, statusCode: 429, retryAfter: "86400" },
      first,
      policy,
      NOW,
      noJitter,
    );
    expect(huge.pauseTargetUntilMs).toBe(NOW + 10_000);
  });

  it("a 500 backs off that delivery only; Retry-After on other statuses is ignored", () => {
    const decided = decideAttempt(
      { ok: false, statusCode: 500, retryAfter: "60" },
      first,
      policy,
      NOW,
      noJitter,
    );
    expect(decided).toEqual({ status: "pending", nextAttemptMs: NOW + 100, pauseTargetUntilMs: null });
  });

  it("delivered on 2xx; dead when attempts are spent or the refusal is permanent", () => {
    expect(decideAttempt({ ok: true, statusCode: 200, retryAfter: null }, first, policy, NOW).status).toBe(
      "delivered",
    );
    expect(
      decideAttempt(
        { ok: false, statusCode: 500, retryAfter: null },
        { attempts: 3, maxAttempts: 3 },
        policy,
        NOW,
      ).status,
    ).toBe("dead");
    expect(decideAttempt({ ok: false, statusCode: 410, retryAfter: null }, first, policy, NOW).status).toBe(
      "dead",
    );
  });
});
