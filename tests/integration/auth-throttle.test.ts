import { createHmac } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "@/lib/server/auth/password";
import { type RunningApp, startApp } from "@/tests/support/app-server";
import { createTestDatabase } from "@/tests/support/test-database";

// The sign-in throttle (lib/auth/sign-in-counters.ts): per account and client address, per address, per account over
// every client (capped), and per known device, kept in PostgreSQL. The delays are shortened (2 s, 4 s, 8 s at most;
// an account over every client 4 s at most); tests/unit/sign-in-backoff.test.ts pins the production policy.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let sql: pg.Client;
let behindProxy: RunningApp;
let direct: RunningApp;

const PASSWORDS: Record<string, string> = {
  admin: "correct horse battery",
  ops: "another good password",
  dev: "developer password 1",
  eve: "eve has an account too",
  quinn: "quinn signs in here",
  owner: "the owner's password",
  spare: "a spare account's password",
  twin: "twin instance password",
  changer: "changer's first password",
};
const password = (username: string) => PASSWORDS[username] ?? "";
const DELAYS = {
  RECEIPT_SIGNIN_BACKOFF_MS: "2000",
  RECEIPT_SIGNIN_BACKOFF_MAX_MS: "8000",
  RECEIPT_SIGNIN_ACCOUNT_MAX_MS: "4000",
  RECEIPT_SIGNIN_FREE_ATTEMPTS: "3",
  RECEIPT_SIGNIN_ADDRESS_FREE_ATTEMPTS: "8",
};

beforeAll(async () => {
  db = await createTestDatabase();
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  for (const [username, secret] of Object.entries(PASSWORDS)) {
    await sql.query(
      "insert into users (id, username, password_hash, role) values (gen_random_uuid(), $1, $2, 'admin')",
      [username, await hashPassword(secret)],
    );
  }
  // Two instances on one database: one behind a trusted proxy (X-Forwarded-For names the client), one without.
  [behindProxy, direct] = await Promise.all([
    startApp(db.url, { ...DELAYS, RECEIPT_TRUST_PROXY: "1" }),
    startApp(db.url, DELAYS),
  ]);
});
afterAll(async () => {
  await Promise.all([behindProxy?.stop(), direct?.stop()]);
  await sql?.end();
  await db?.drop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type From = { address?: string; cookie?: string };

function signIn(app: RunningApp, username: string, secret: string, from: From = {}) {
  return fetch(`${app.baseUrl}/api/auth/sign-in`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(from.address ? { "x-forwarded-for": from.address } : {}),
      ...(from.cookie ? { cookie: from.cookie } : {}),
    },
    body: JSON.stringify({ username, password: secret }),
  });
}

const wrong = (app: RunningApp, username: string, from: From = {}) =>
  signIn(app, username, "wrong password", from);
const right = (app: RunningApp, username: string, from: From = {}) =>
  signIn(app, username, password(username), from);

async function expectStatus(response: Response, status: number, code?: string) {
  expect(response.status).toBe(status);
  if (code) expect(await response.json()).toMatchObject({ error: { code } });
  else await response.body?.cancel();
}

/** A 429 from the throttle: its code, the locked counts' paths, and Retry-After in seconds. */
async function expectLocked(response: Response, paths: string[]): Promise<number> {
  expect(response.status).toBe(429);
  const body = await response.json();
  expect(body).toEqual({
    error: {
      code: "too_many_attempts",
      message: expect.stringMatching(/^too many failed sign-ins; try again in \d+ s$/),
      issues: paths.map((path) => ({ path, code: "too_many_attempts", message: expect.any(String) })),
    },
  });
  expect(response.headers.get("set-cookie")).toBeNull();
  return Number(response.headers.get("retry-after"));
}

/** A successful sign-in, and the known-device cookie it gave this browser (as the browser sends it back). */
async function signedInDevice(response: Response): Promise<string> {
  expect(response.status).toBe(200);
  await response.body?.cancel();
  const [session, device] = response.headers.getSetCookie();
  expect(session).toMatch(/^receipt_session=/);
  expect(device).toMatch(
    /^receipt_device=[\w-]+\.[\w-]+; Path=\/api; HttpOnly; SameSite=Strict; Max-Age=15552000$/,
  );
  return device?.split(";")[0] ?? "";
}

async function failures(key: string): Promise<number | undefined> {
  const { rows } = await sql.query<{ failures: number }>(
    "select failures from sign_in_throttle where key = $1",
    [key],
  );
  return rows[0]?.failures;
}

describe("one client at one account (behind a trusted proxy)", () => {
  it("the guessing address gets 429 with a growing Retry-After; the owner elsewhere waits at most the account's cap", async () => {
    const at = { address: "203.0.113.10" };
    for (let i = 0; i < 3; i++)
      await expectStatus(await wrong(behindProxy, "admin", at), 401, "invalid_credentials");
    const waits: number[] = [];
    for (const lockMs of [2000, 4000, 8000]) {
      const counted = Date.now();
      // This failure earns the next lock…
      await expectStatus(await wrong(behindProxy, "admin", at), 401, "invalid_credentials");
      // …during which even the right password is refused from that address.
      const retryAfter = await expectLocked(await right(behindProxy, "admin", at), [
        "$.username",
        "$.username",
      ]);
      // The lock runs from when the attempt was counted, so on a busy machine less of it may be left; never more.
      expect(retryAfter).toBeLessThanOrEqual(lockMs / 1000);
      expect(retryAfter).toBeGreaterThanOrEqual(
        Math.max(1, Math.ceil((lockMs - (Date.now() - counted)) / 1000)),
      );
      waits.push(retryAfter);
      if (lockMs < 8000) await sleep(retryAfter * 1000 + 100);
    }
    expect(waits[1]).toBeGreaterThan(waits[0] ?? 0);
    expect(waits[2]).toBeGreaterThan(waits[1] ?? 0);
    // The owner at another address, with no known device, waits the account's cap at most (4 s), then gets in…
    const elsewhere = { address: "198.51.100.10" };
    const ownerWait = await expectLocked(await right(behindProxy, "admin", elsewhere), ["$.username"]);
    expect(ownerWait).toBeLessThanOrEqual(4);
    await sleep(ownerWait * 1000 + 100);
    await signedInDevice(await right(behindProxy, "admin", elsewhere));
    // …while the guessing address is still locked at the account.
    const left = await expectLocked(await right(behindProxy, "admin", at), ["$.username"]);
    expect(left).toBeGreaterThanOrEqual(1);
    await sleep(left * 1000 + 100);
    await signedInDevice(await right(behindProxy, "admin", at));
    // Its count started again: free failures again.
    for (let i = 0; i < 2; i++) await expectStatus(await wrong(behindProxy, "admin", at), 401);
    await expectStatus(await right(behindProxy, "admin", at), 200);
  });

  it("a known device signs in at once while the account is locked for everyone else, even from the attacker's address", async () => {
    const home = { address: "203.0.113.11" };
    const cookie = await signedInDevice(await right(behindProxy, "ops", home));
    const attacker = { address: "198.51.100.11" };
    for (let i = 0; i < 4; i++) await expectStatus(await wrong(behindProxy, "ops", attacker), 401);
    await expectLocked(await right(behindProxy, "ops", home), ["$.username"]);
    await expectLocked(await right(behindProxy, "ops", { address: "192.0.2.11" }), ["$.username"]);
    await signedInDevice(await right(behindProxy, "ops", { ...home, cookie }));
    await signedInDevice(await right(behindProxy, "ops", { ...attacker, cookie }));
    // Failures on the device lock the device, and add nothing to the account's count over other clients.
    for (let i = 0; i < 4; i++) await expectStatus(await wrong(behindProxy, "ops", { ...home, cookie }), 401);
    const deviceWait = await expectLocked(await right(behindProxy, "ops", { ...home, cookie }), [
      "$.username",
    ]);
    expect([1, 2]).toContain(deviceWait);
    expect(await failures("account:ops")).toBe(4);
    expect(await failures("account-address:ops@203.0.113.11")).toBeUndefined();
  });

  it("counts a forged, tampered, expired or other account's device cookie as none", async () => {
    const eveCookie = await signedInDevice(await right(behindProxy, "eve", { address: "203.0.113.12" }));
    for (let i = 0; i < 4; i++)
      await expectStatus(await wrong(behindProxy, "dev", { address: "198.51.100.12" }), 401);
    // Held for a minute (as in the middle of an attack), so a slow machine cannot outlast the 2 s lock.
    await sql.query(
      "update sign_in_throttle set locked_until = now() + interval '1 minute' where key = 'account:dev'",
    );
    const [payload = "", signature = ""] = eveCookie.slice("receipt_device=".length).split(".");
    const content = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    const { rows } = await sql.query<{ key: Buffer }>(
      "select key from server_keys where name = 'known_device'",
    );
    const key = rows[0]?.key ?? Buffer.alloc(0);
    expect(key.length).toBe(32);
    const signed = (fields: object) => {
      const body = Buffer.from(JSON.stringify({ ...content, ...fields })).toString("base64url");
      return `receipt_device=${body}.${createHmac("sha256", key).update(`receipt known device v1.${body}`).digest("base64url")}`;
    };
    const rewritten = Buffer.from(JSON.stringify({ ...content, u: "dev" })).toString("base64url");
    const from = { address: "203.0.113.12" };
    for (const cookie of [
      eveCookie,
      `receipt_device=${rewritten}.${signature}`,
      `receipt_device=${payload}.${signature.slice(1)}A`,
      "receipt_device=garbage",
      signed({ u: "dev", exp: Date.now() - 1000 }),
    ]) {
      await expectLocked(await right(behindProxy, "dev", { ...from, cookie }), ["$.username"]);
    }
    // The same content signed with the server's key, in its time: a known device of dev, in at once.
    await signedInDevice(await right(behindProxy, "dev", { ...from, cookie: signed({ u: "dev" }) }));
  });
});

describe("per client address (behind a trusted proxy)", () => {
  it("failures at many usernames from one address lock that address, not the others, nor a known device there", async () => {
    const cookie = await signedInDevice(await right(behindProxy, "quinn", { address: "203.0.113.21" }));
    const at = { address: "203.0.113.20" };
    // Eight free failures for the address, at nine different (unknown) accounts so no account lock applies.
    for (let i = 0; i < 9; i++) await expectStatus(await wrong(behindProxy, `sprayed-${i}`, at), 401);
    const retryAfter = await expectLocked(await right(behindProxy, "quinn", at), ["$"]);
    expect([1, 2]).toContain(retryAfter);
    await expectStatus(await right(behindProxy, "quinn", { address: "203.0.113.21" }), 200);
    await expectStatus(await right(behindProxy, "quinn", { ...at, cookie }), 200);
    await sleep(retryAfter * 1000 + 100);
    await expectStatus(await right(behindProxy, "quinn", at), 200);
  });

  it("the client is the entry the trusted proxy appended: addresses written further left change nothing", async () => {
    const at = "203.0.113.30";
    for (let i = 0; i < 9; i++)
      await expectStatus(await wrong(behindProxy, `rotated-${i}`, { address: `192.0.2.${i}, ${at}` }), 401);
    await expectLocked(await wrong(behindProxy, "rotated-x", { address: `192.0.2.200, ${at}` }), ["$"]);
  });

  it("an entry the proxy did not give is no address: 25 failures through it at other accounts lock nobody else", async () => {
    for (let i = 0; i < 25; i++)
      await expectStatus(
        await wrong(behindProxy, `no-address-${i}`, {
          address: i % 2 ? "not-an-address" : "192.0.2.1, garbage",
        }),
        401,
      );
    await expectStatus(await right(behindProxy, "spare", { address: "not-an-address" }), 200);
  });
});

describe("no count every client shares (no trusted proxy)", () => {
  it("25 failures over 25 usernames from one client lock no other account: its right password gets in at once", async () => {
    for (let i = 0; i < 25; i++)
      await expectStatus(await wrong(direct, `sprayed-direct-${i}`, { address: `192.0.2.${i}` }), 401);
    // Hammering one account, refused or not, locks that account only.
    for (let i = 0; i < 25; i++) expect([401, 429]).toContain((await wrong(direct, "eve")).status);
    await signedInDevice(await right(direct, "owner"));
    expect(await failures("address:any")).toBeUndefined();
  });

  it("an attacker hammering one account keeps its owner out no longer than the cap, and a known device not at all", async () => {
    const cookie = await signedInDevice(await right(direct, "twin"));
    // As after a long attack: a thousand failures at the account. The next one locks it for the cap (4 s), no more.
    await sql.query(
      "insert into sign_in_throttle (key, failures, last_attempt_at) values ('account:twin', 1000, now())",
    );
    const counted = Date.now();
    await expectStatus(await wrong(direct, "twin"), 401);
    await signedInDevice(await right(direct, "twin", { cookie }));
    const wait = await expectLocked(await right(direct, "twin"), ["$.username"]);
    expect(wait).toBeLessThanOrEqual(4);
    expect(wait).toBeGreaterThanOrEqual(Math.max(1, Math.ceil((4000 - (Date.now() - counted)) / 1000)));
    // Rotating X-Forwarded-For without a trusted proxy escapes nothing.
    await expectLocked(await right(direct, "twin", { address: "192.0.2.77" }), ["$.username"]);
    await sleep(wait * 1000 + 100);
    await signedInDevice(await right(direct, "twin"));
    // The owner's success starts the account's count again.
    expect(await failures("account:twin")).toBeUndefined();
  });

  it("holds across app instances: a lock earned through one is kept by the other, and a device known to one is to both", async () => {
    // The account's lock from the known-device test above ended long ago.
    const cookie = await signedInDevice(await right(direct, "ops"));
    for (let i = 0; i < 4; i++)
      await expectStatus(await wrong(behindProxy, "ops", { address: "203.0.113.13" }), 401);
    await expectLocked(await right(direct, "ops"), ["$.username"]);
    await signedInDevice(await right(behindProxy, "ops", { address: "203.0.113.14", cookie }));
  });
});

describe("the password change", () => {
  it("checks the current password through the same counts: locked for a stolen session, not on the known device", async () => {
    const response = await right(direct, "changer");
    const device = await signedInDevice(response);
    const session = response.headers.getSetCookie()[0]?.split(";")[0] ?? "";
    // The account is locked for every client but its known devices (as in the middle of an attack).
    await sql.query(
      `insert into sign_in_throttle (key, failures, locked_until, last_attempt_at)
        values ('account:changer', 50, now() + interval '1 minute', now())`,
    );
    const change = (cookie: string) =>
      fetch(`${direct.baseUrl}/api/v1/me/password`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie },
        body: JSON.stringify({
          currentPassword: password("changer"),
          newPassword: "changer's second password",
        }),
      });
    const retryAfter = await expectLocked(await change(session), ["$.currentPassword"]);
    expect(retryAfter).toBeGreaterThan(50);
    expect(await (await change(`${session}; ${device}`)).json()).toEqual({ otherSessionsEnded: 0 });
  });
});

describe("what the throttle leaves behind", () => {
  it("logs each failed sign-in with the username, client, device and counts, never the password", () => {
    const log = behindProxy.output();
    expect(log).toMatch(
      /receipt: sign-in failed: user=sprayed-0 client=203\.0\.113\.20 device=none failures=account_address:1,address:1,account:1 locked_s=0/,
    );
    expect(log).toMatch(
      /receipt: sign-in failed: user=admin client=203\.0\.113\.10 device=none failures=account_address:4,/,
    );
    expect(log).toMatch(
      /receipt: sign-in failed: user=ops client=203\.0\.113\.11 device=known failures=device:1 /,
    );
    expect(log).toMatch(
      /receipt: sign-in refused while locked: user=admin client=203\.0\.113\.10 device=none locked=account_address,account retry_after_s=[12]/,
    );
    expect(direct.output()).toMatch(
      /receipt: sign-in failed: user=twin client=unknown device=none failures=account:1001 locked_s=[34]/,
    );
    for (const secret of ["wrong password", ...Object.values(PASSWORDS)])
      expect(`${log}${direct.output()}`).not.toContain(secret);
  });

  it("keeps its counts in PostgreSQL by what they count, and no key every client shares", async () => {
    const { rows } = await sql.query<{ key: string; failures: number }>(
      `select key, failures from sign_in_throttle
        where key in ('address:203.0.113.30', 'account-address:ops@198.51.100.11', 'account:dev') or key like 'address:%'
        order by key collate "C"`,
    );
    expect(rows).toEqual([
      { key: "account-address:ops@198.51.100.11", failures: 4 },
      { key: "account:dev", failures: 4 },
      { key: "address:198.51.100.11", failures: 4 },
      { key: "address:198.51.100.12", failures: 4 },
      { key: "address:203.0.113.10", failures: 8 },
      { key: "address:203.0.113.13", failures: 4 },
      { key: "address:203.0.113.20", failures: 9 },
      { key: "address:203.0.113.30", failures: 9 },
    ]);
  });
});
