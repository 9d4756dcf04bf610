import { describe, expect, it } from "vitest";
import { clientAddress } from "@/lib/auth/client-address";
import {
  ACCOUNT_BACKOFF,
  ADDRESS_BACKOFF,
  afterSuccess,
  CLIENT_BACKOFF,
  decideAttempt,
  FORGET_FAILURES_AFTER_MS,
  lockMsAfter,
  retryAfterSeconds,
} from "@/lib/auth/sign-in-backoff";

const at = (ms: number) => new Date(Date.UTC(2026, 11, 1) + ms);

describe("the production back-off", () => {
  it("gives one client at one account five free failures, then 1 s, 2 s, 4 s … and never more than 5 minutes", () => {
    const locks = Array.from({ length: 14 }, (_, i) => lockMsAfter(i + 1, CLIENT_BACKOFF));
    expect(locks).toEqual([0, 0, 0, 0, 0, 1000, 2000, 4000, 8000, 16_000, 32_000, 64_000, 128_000, 256_000]);
    expect(lockMsAfter(15, CLIENT_BACKOFF)).toBe(300_000);
    expect(lockMsAfter(10_000, CLIENT_BACKOFF)).toBe(300_000);
    expect(lockMsAfter(Number.MAX_SAFE_INTEGER, CLIENT_BACKOFF)).toBe(300_000);
  });

  it("gives a client address twenty free failures, with the same delays after them", () => {
    expect(lockMsAfter(20, ADDRESS_BACKOFF)).toBe(0);
    expect(lockMsAfter(21, ADDRESS_BACKOFF)).toBe(1000);
    expect(lockMsAfter(22, ADDRESS_BACKOFF)).toBe(2000);
    expect(lockMsAfter(1000, ADDRESS_BACKOFF)).toBe(300_000);
  });

  it("locks an account over every client for 30 s at most, however many failures it had", () => {
    const locks = Array.from({ length: 12 }, (_, i) => lockMsAfter(i + 1, ACCOUNT_BACKOFF));
    expect(locks).toEqual([0, 0, 0, 0, 0, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
    expect(lockMsAfter(1_000_000, ACCOUNT_BACKOFF)).toBe(30_000);
  });

  it("an attacker sending one guess each time the account's lock ends keeps it locked for 30 s at a time, no more", () => {
    let count = null as Parameters<typeof decideAttempt>[0];
    let now = 0;
    let longest = 0;
    for (let i = 0; i < 500; i++) {
      const decision = decideAttempt(count, ACCOUNT_BACKOFF, at(now));
      if (!decision.allowed) throw new Error("refused after its lock ended");
      count = decision.next;
      const lock = count.lockedUntil ? count.lockedUntil.getTime() - now - at(0).getTime() : 0;
      longest = Math.max(longest, lock);
      now += lock;
    }
    expect(longest).toBe(30_000);
    // The owner arriving at any moment is refused with at most 30 s left.
    expect(decideAttempt(count, ACCOUNT_BACKOFF, at(now - 1))).toEqual({ allowed: false, retryAfterMs: 1 });
    expect(decideAttempt(count, ACCOUNT_BACKOFF, at(now - 30_000))).toEqual({
      allowed: false,
      retryAfterMs: 30_000,
    });
  });
});

describe("decideAttempt", () => {
  const policy = { freeAttempts: 2, baseMs: 1000, maxMs: 4000 };

  it("counts each attempt before it is checked and locks once the free ones are used", () => {
    const first = decideAttempt(null, policy, at(0));
    expect(first).toEqual({ allowed: true, next: { failures: 1, lockedUntil: null, lastAttemptAt: at(0) } });
    const second = decideAttempt({ failures: 1, lockedUntil: null, lastAttemptAt: at(0) }, policy, at(10));
    expect(second).toEqual({
      allowed: true,
      next: { failures: 2, lockedUntil: null, lastAttemptAt: at(10) },
    });
    const third = decideAttempt({ failures: 2, lockedUntil: null, lastAttemptAt: at(10) }, policy, at(20));
    expect(third).toEqual({
      allowed: true,
      next: { failures: 3, lockedUntil: at(1020), lastAttemptAt: at(20) },
    });
  });

  it("refuses every attempt while locked, and says how long is left", () => {
    const locked = { failures: 3, lockedUntil: at(1020), lastAttemptAt: at(20) };
    expect(decideAttempt(locked, policy, at(20))).toEqual({ allowed: false, retryAfterMs: 1000 });
    expect(decideAttempt(locked, policy, at(1019))).toEqual({ allowed: false, retryAfterMs: 1 });
    expect(decideAttempt(locked, policy, at(1020))).toMatchObject({ allowed: true, next: { failures: 4 } });
  });

  it("grows the lock with each failure up to the cap, so no lock is for good", () => {
    let count = null as Parameters<typeof decideAttempt>[0];
    let now = 0;
    const locks: number[] = [];
    for (let i = 0; i < 8; i++) {
      const decision = decideAttempt(count, policy, at(now));
      if (!decision.allowed) throw new Error("refused after its lock ended");
      count = decision.next;
      const lock = count.lockedUntil ? count.lockedUntil.getTime() - at(now).getTime() : 0;
      locks.push(lock);
      now += lock;
    }
    expect(locks).toEqual([0, 0, 1000, 2000, 4000, 4000, 4000, 4000]);
  });

  it("forgets a count nobody added to for a day", () => {
    const old = { failures: 50, lockedUntil: at(4000), lastAttemptAt: at(0) };
    expect(decideAttempt(old, policy, at(FORGET_FAILURES_AFTER_MS))).toMatchObject({
      next: { failures: 51 },
    });
    expect(decideAttempt(old, policy, at(FORGET_FAILURES_AFTER_MS + 1))).toMatchObject({
      next: { failures: 1, lockedUntil: null },
    });
  });

  it("takes back a successful attempt: the lock stays only while the other failures still earn one", () => {
    expect(afterSuccess({ failures: 3, lockedUntil: at(1000), lastAttemptAt: at(0) }, policy)).toEqual({
      failures: 2,
      lockedUntil: null,
      lastAttemptAt: at(0),
    });
    expect(afterSuccess({ failures: 5, lockedUntil: at(4000), lastAttemptAt: at(0) }, policy)).toEqual({
      failures: 4,
      lockedUntil: at(4000),
      lastAttemptAt: at(0),
    });
  });

  it("rounds Retry-After up to whole seconds, never 0", () => {
    expect([1, 999, 1000, 1001, 4000].map(retryAfterSeconds)).toEqual([1, 1, 1, 2, 4]);
  });
});

describe("clientAddress", () => {
  it("believes no X-Forwarded-For without a trusted proxy: no address, never one key for every client", () => {
    expect(clientAddress(null, 0)).toBeNull();
    expect(clientAddress("203.0.113.7", 0)).toBeNull();
    expect(clientAddress("198.51.100.1, 203.0.113.7", 0)).toBeNull();
  });

  it("takes the entry the trusted proxies appended, never one the client wrote further left", () => {
    expect(clientAddress("203.0.113.7", 1)).toBe("203.0.113.7");
    expect(clientAddress("198.51.100.1, 203.0.113.7", 1)).toBe("203.0.113.7");
    expect(clientAddress("198.51.100.1, 203.0.113.7, 10.0.0.2", 2)).toBe("203.0.113.7");
  });

  it("normalises ports, brackets, case and IPv4-mapped IPv6", () => {
    expect(clientAddress("203.0.113.7:51234", 1)).toBe("203.0.113.7");
    expect(clientAddress("[2001:DB8::1]:443", 1)).toBe("2001:db8::1");
    expect(clientAddress("::ffff:203.0.113.7", 1)).toBe("203.0.113.7");
  });

  it("gives a missing or malformed entry no address, not a key shared by every such client", () => {
    expect(clientAddress(null, 1)).toBeNull();
    expect(clientAddress("", 1)).toBeNull();
    expect(clientAddress("203.0.113.7", 2)).toBeNull();
    expect(clientAddress("not-an-address", 1)).toBeNull();
    expect(clientAddress("203.0.113.7, evil", 1)).toBeNull();
    expect(clientAddress("any", 1)).toBeNull();
  });
});
