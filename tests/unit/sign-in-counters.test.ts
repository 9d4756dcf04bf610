import { describe, expect, it } from "vitest";
import { ACCOUNT_BACKOFF, ADDRESS_BACKOFF, CLIENT_BACKOFF } from "@/lib/auth/sign-in-backoff";
import { LOCK_MESSAGE, signInCounters, signInPolicies } from "@/lib/auth/sign-in-counters";
import { parseEnv } from "@/lib/server/env";

const policies = { client: CLIENT_BACKOFF, address: ADDRESS_BACKOFF, account: ACCOUNT_BACKOFF };

describe("signInCounters", () => {
  it("counts a known device on that device alone: no account-wide, address or account-from-address count", () => {
    const counters = signInCounters(
      "admin",
      { address: "203.0.113.7", knownDevice: "d".repeat(22) },
      policies,
    );
    expect(counters).toEqual([
      {
        scope: "device",
        key: `device:admin@${"d".repeat(22)}`,
        policy: CLIENT_BACKOFF,
        issuePath: "$.username",
        onSuccess: "clear",
      },
    ]);
  });

  it("without a believable address, counts the account alone (capped), never a key shared by every client", () => {
    const counters = signInCounters("admin", { address: null, knownDevice: null }, policies);
    expect(counters).toEqual([
      {
        scope: "account",
        key: "account:admin",
        policy: ACCOUNT_BACKOFF,
        issuePath: "$.username",
        onSuccess: "clear",
      },
    ]);
    expect(counters[0]?.policy.maxMs).toBe(30_000);
  });

  it("with an address, counts the account from that address, the address over every account, and the account", () => {
    const counters = signInCounters("ops", { address: "2001:db8::1", knownDevice: null }, policies);
    expect(
      counters.map(({ scope, key, policy, issuePath, onSuccess }) => [
        scope,
        key,
        policy,
        issuePath,
        onSuccess,
      ]),
    ).toEqual([
      ["account_address", "account-address:ops@2001:db8::1", CLIENT_BACKOFF, "$.username", "clear"],
      ["address", "address:2001:db8::1", ADDRESS_BACKOFF, "$", "take_back"],
      ["account", "account:ops", ACCOUNT_BACKOFF, "$.username", "clear"],
    ]);
  });

  it("keeps the counts of two accounts, two addresses and two devices apart", () => {
    const keys = [
      signInCounters("a", { address: "203.0.113.1", knownDevice: null }, policies),
      signInCounters("b", { address: "203.0.113.1", knownDevice: null }, policies),
      signInCounters("a", { address: "203.0.113.2", knownDevice: null }, policies),
      signInCounters("a", { address: null, knownDevice: "x".repeat(22) }, policies),
      signInCounters("a", { address: null, knownDevice: "y".repeat(22) }, policies),
    ].map((counters) => counters.map((counter) => counter.key));
    expect(keys).toEqual([
      ["account-address:a@203.0.113.1", "address:203.0.113.1", "account:a"],
      ["account-address:b@203.0.113.1", "address:203.0.113.1", "account:b"],
      ["account-address:a@203.0.113.2", "address:203.0.113.2", "account:a"],
      [`device:a@${"x".repeat(22)}`],
      [`device:a@${"y".repeat(22)}`],
    ]);
  });

  it("says which count refused, for every scope", () => {
    expect(Object.keys(LOCK_MESSAGE).sort()).toEqual(["account", "account_address", "address", "device"]);
    for (const message of Object.values(LOCK_MESSAGE)) expect(message).toMatch(/locked/);
  });
});

describe("signInPolicies", () => {
  const settings = {
    freeAttempts: 5,
    addressFreeAttempts: 20,
    baseMs: 1000,
    maxMs: 300_000,
    accountMaxMs: 30_000,
  };

  it("are the production policies with the default settings", () => {
    const env = parseEnv({});
    expect(
      signInPolicies({
        freeAttempts: env.RECEIPT_SIGNIN_FREE_ATTEMPTS,
        addressFreeAttempts: env.RECEIPT_SIGNIN_ADDRESS_FREE_ATTEMPTS,
        baseMs: env.RECEIPT_SIGNIN_BACKOFF_MS,
        maxMs: env.RECEIPT_SIGNIN_BACKOFF_MAX_MS,
        accountMaxMs: env.RECEIPT_SIGNIN_ACCOUNT_MAX_MS,
      }),
    ).toEqual(policies);
    expect(signInPolicies(settings)).toEqual(policies);
  });

  it("keeps the account's cap between the first lock and the maximum", () => {
    expect(signInPolicies({ ...settings, accountMaxMs: 600_000 }).account.maxMs).toBe(300_000);
    expect(signInPolicies({ ...settings, accountMaxMs: 10 }).account.maxMs).toBe(1000);
    expect(signInPolicies({ ...settings, baseMs: 5000, maxMs: 2000 })).toMatchObject({
      client: { baseMs: 5000, maxMs: 5000 },
      account: { baseMs: 5000, maxMs: 5000 },
    });
  });
});
