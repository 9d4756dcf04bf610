import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "@/lib/server/auth/password";
import { type RunningApp, startApp } from "@/tests/support/app-server";
import { createTestDatabase } from "@/tests/support/test-database";

// The sign-in throttle: per account and per client address, a growing back-off kept in PostgreSQL. The delays are
// shortened (2 s, 4 s, 8 s at most); tests/unit/sign-in-backoff.test.ts pins the production policy.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let behindProxy: RunningApp;
let direct: RunningApp;

const DELAYS = { RECEIPT_SIGNIN_BACKOFF_MS: "2000", RECEIPT_SIGNIN_BACKOFF_MAX_MS: "8000" };
const ADMIN = { username: "admin", password: "correct horse battery" };
const OPS = { username: "ops", password: "another good password" };

beforeAll(async () => {
  db = await createTestDatabase();
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  for (const user of [ADMIN, OPS]) {
    await client.query(
      "insert into users (id, username, password_hash, role) values (gen_random_uuid(), $1, $2, 'admin')",
      [user.username, await hashPassword(user.password)],
    );
  }
  await client.end();
  // Two instances on one database: one behind a trusted proxy (X-Forwarded-For names the client), one without.
  [behindProxy, direct] = await Promise.all([
    startApp(db.url, {
      ...DELAYS,
      RECEIPT_SIGNIN_FREE_ATTEMPTS: "3",
      RECEIPT_SIGNIN_ADDRESS_FREE_ATTEMPTS: "8",
      RECEIPT_TRUST_PROXY: "1",
    }),
    startApp(db.url, {
      ...DELAYS,
      RECEIPT_SIGNIN_FREE_ATTEMPTS: "3",
      RECEIPT_SIGNIN_ADDRESS_FREE_ATTEMPTS: "3",
    }),
  ]);
});
afterAll(async () => {
  await Promise.all([behindProxy?.stop(), direct?.stop()]);
  await db?.drop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function signIn(app: RunningApp, username: string, password: string, clientAddress?: string) {
  return fetch(`${app.baseUrl}/api/auth/sign-in`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(clientAddress ? { "x-forwarded-for": clientAddress } : {}),
    },
    body: JSON.stringify({ username, password }),
  });
}

async function expectStatus(response: Response, status: number, code?: string) {
  expect(response.status).toBe(status);
  if (code) expect(await response.json()).toMatchObject({ error: { code } });
  else await response.body?.cancel();
}

/** A 429 from the throttle: its code, the locked key's path, and Retry-After in seconds. */
async function expectLocked(response: Response, path: string): Promise<number> {
  expect(response.status).toBe(429);
  expect(await response.json()).toEqual({
    error: {
      code: "too_many_attempts",
      message: expect.stringMatching(/^too many failed sign-ins; try again in \d+ s$/),
      issues: [{ path, code: "too_many_attempts", message: expect.any(String) }],
    },
  });
  expect(response.headers.get("set-cookie")).toBeNull();
  return Number(response.headers.get("retry-after"));
}

describe("per account", () => {
  it("three free failures, then 429 with a growing Retry-After; the right password is refused while locked, accepted after", async () => {
    const at = "203.0.113.10";
    for (let i = 0; i < 3; i++)
      await expectStatus(
        await signIn(behindProxy, "admin", "wrong password", at),
        401,
        "invalid_credentials",
      );
    const waits: number[] = [];
    for (const lockMs of [2000, 4000, 8000]) {
      const counted = Date.now();
      // This failure earns the next lock…
      await expectStatus(
        await signIn(behindProxy, "admin", "wrong password", at),
        401,
        "invalid_credentials",
      );
      // …during which even the right password is refused.
      const retryAfter = await expectLocked(
        await signIn(behindProxy, ADMIN.username, ADMIN.password, at),
        "$.username",
      );
      // The lock runs from when the attempt was counted (before its password was checked), so on a busy machine
      // less of it may be left by now; never more.
      const leftAtLeast = lockMs - (Date.now() - counted);
      expect(retryAfter).toBeLessThanOrEqual(lockMs / 1000);
      expect(retryAfter).toBeGreaterThanOrEqual(Math.max(1, Math.ceil(leftAtLeast / 1000)));
      waits.push(retryAfter);
      await sleep(retryAfter * 1000 + 100);
    }
    expect(waits[1]).toBeGreaterThan(waits[0] ?? 0);
    expect(waits[2]).toBeGreaterThan(waits[1] ?? 0);
    // The lock ended: the right password works, and the count starts again (free failures again).
    await expectStatus(await signIn(behindProxy, ADMIN.username, ADMIN.password, at), 200);
    for (let i = 0; i < 2; i++)
      await expectStatus(await signIn(behindProxy, "admin", "wrong password", at), 401);
    await expectStatus(await signIn(behindProxy, ADMIN.username, ADMIN.password, at), 200);
  });

  it("locks one account only: another signs in meanwhile from the same address", async () => {
    const at = "203.0.113.11";
    for (let i = 0; i < 4; i++)
      await expectStatus(await signIn(behindProxy, "ops", "wrong password", at), 401);
    const retryAfter = await expectLocked(
      await signIn(behindProxy, OPS.username, OPS.password, at),
      "$.username",
    );
    expect([1, 2]).toContain(retryAfter);
    await expectStatus(await signIn(behindProxy, ADMIN.username, ADMIN.password, at), 200);
    // From any other address too: the account's lock is the account's.
    await expectLocked(await signIn(behindProxy, OPS.username, OPS.password, "198.51.100.99"), "$.username");
    await sleep(retryAfter * 1000 + 100);
    await expectStatus(await signIn(behindProxy, OPS.username, OPS.password, at), 200);
  });

  it("counts an unknown username like a known one, so the throttle does not tell which exist", async () => {
    const at = "203.0.113.12";
    const answers: number[] = [];
    for (const username of ["admin", "nobody-here"]) {
      for (let i = 0; i < 5; i++)
        answers.push((await signIn(behindProxy, username, "wrong password", at)).status);
    }
    expect(answers).toEqual([401, 401, 401, 401, 429, 401, 401, 401, 401, 429]);
    await sleep(2100);
    await expectStatus(await signIn(behindProxy, ADMIN.username, ADMIN.password, at), 200);
  });

  it("holds across app instances: a lock earned through one is kept by the other", async () => {
    for (let i = 0; i < 4; i++)
      await expectStatus(await signIn(behindProxy, "ops", "wrong password", "203.0.113.13"), 401);
    await expectLocked(await signIn(direct, OPS.username, OPS.password), "$.username");
    await sleep(2100);
    await expectStatus(await signIn(direct, OPS.username, OPS.password), 200);
  });
});

describe("per client address", () => {
  it("failures at many usernames from one address lock that address, not the others", async () => {
    const at = "203.0.113.20";
    // Eight free failures for the address, at eight different (unknown) accounts so no account lock applies.
    for (let i = 0; i < 9; i++)
      await expectStatus(await signIn(behindProxy, `sprayed-${i}`, "wrong password", at), 401);
    const retryAfter = await expectLocked(await signIn(behindProxy, ADMIN.username, ADMIN.password, at), "$");
    expect([1, 2]).toContain(retryAfter);
    await expectStatus(await signIn(behindProxy, ADMIN.username, ADMIN.password, "203.0.113.21"), 200);
    await sleep(retryAfter * 1000 + 100);
    await expectStatus(await signIn(behindProxy, ADMIN.username, ADMIN.password, at), 200);
  });

  it("the client is the entry the trusted proxy appended: addresses written further left change nothing", async () => {
    const at = "203.0.113.30";
    for (let i = 0; i < 9; i++) {
      await expectStatus(
        await signIn(behindProxy, `rotated-${i}`, "wrong password", `192.0.2.${i}, ${at}`),
        401,
      );
    }
    await expectLocked(await signIn(behindProxy, "rotated-x", "wrong password", `192.0.2.200, ${at}`), "$");
  });

  it("without a trusted proxy X-Forwarded-For is not believed: rotating it escapes nothing", async () => {
    await sleep(2100); // the shared account lock of the previous instance test has ended
    for (let i = 0; i < 4; i++) {
      await expectStatus(await signIn(direct, `direct-${i}`, "wrong password", `192.0.2.${50 + i}`), 401);
    }
    await expectLocked(await signIn(direct, "direct-x", "wrong password", "192.0.2.99"), "$");
  });
});

describe("what the throttle leaves behind", () => {
  it("logs each failed sign-in with the username, client and counts, never the password", () => {
    const log = behindProxy.output();
    expect(log).toMatch(
      /receipt: sign-in failed: user=sprayed-0 client=203\.0\.113\.20 account_failures=1 address_failures=1 locked_s=0/,
    );
    expect(log).toMatch(/receipt: sign-in failed: user=admin client=203\.0\.113\.10 account_failures=4 /);
    expect(log).toMatch(
      /receipt: sign-in refused while locked: user=admin client=203\.0\.113\.10 retry_after_s=[12]/,
    );
    expect(`${log}${direct.output()}`).not.toContain("wrong password");
    expect(`${log}${direct.output()}`).not.toContain(ADMIN.password);
  });

  it("keeps its counts in PostgreSQL, keyed by account and by address", async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const { rows } = await client.query<{ key: string; failures: number }>(
      "select key, failures from sign_in_throttle where key in ('address:203.0.113.30', 'address:any') order by key",
    );
    await client.end();
    expect(rows).toEqual([
      { key: "address:203.0.113.30", failures: 9 },
      { key: "address:any", failures: 4 },
    ]);
  });
});
