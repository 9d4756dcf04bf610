import { createHmac, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  KNOWN_DEVICE_COOKIE,
  KNOWN_DEVICE_DAYS,
  knownDeviceCookie,
  newDeviceId,
  readKnownDevice,
} from "@/lib/auth/known-device";

const key = randomBytes(32);
const now = Date.UTC(2026, 11, 5);
const device = newDeviceId();

/** The cookie's name=value, as a browser sends it back. */
const sent = (setCookie: string) => setCookie.split(";")[0] ?? "";
const cookieOf = (username: string, id = device, signingKey = key, at = now) =>
  sent(knownDeviceCookie(username, id, signingKey, false, at));

describe("the known-device cookie", () => {
  it("is HttpOnly, SameSite=Strict, for the API only, kept 180 days, Secure over https", () => {
    const header = knownDeviceCookie("admin", device, key, true, now);
    expect(header).toMatch(new RegExp(`^${KNOWN_DEVICE_COOKIE}=[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+; `));
    expect(header.split("; ").slice(1)).toEqual([
      "Path=/api",
      "HttpOnly",
      "SameSite=Strict",
      `Max-Age=${KNOWN_DEVICE_DAYS * 86_400}`,
      "Secure",
    ]);
    expect(knownDeviceCookie("admin", device, key, false, now)).not.toContain("Secure");
  });

  it("names the device it was made for, to the account it was made for, among other cookies", () => {
    expect(newDeviceId()).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(newDeviceId()).not.toBe(device);
    expect(readKnownDevice(cookieOf("admin"), "admin", key, now)).toBe(device);
    expect(readKnownDevice(`a=1; ${cookieOf("admin")}; receipt_session=xyz`, "admin", key, now)).toBe(device);
  });

  it("is nothing for another account, another server's key, or past its time", () => {
    expect(readKnownDevice(cookieOf("eve"), "admin", key, now)).toBeNull();
    expect(readKnownDevice(cookieOf("admin", device, randomBytes(32)), "admin", key, now)).toBeNull();
    const expiresAt = now + KNOWN_DEVICE_DAYS * 86_400_000;
    expect(readKnownDevice(cookieOf("admin"), "admin", key, expiresAt - 1)).toBe(device);
    expect(readKnownDevice(cookieOf("admin"), "admin", key, expiresAt)).toBeNull();
  });

  it("is nothing when forged: a payload rewritten to another account, a changed signature, malformed values", () => {
    const [payload, signature] = cookieOf("eve")
      .slice(KNOWN_DEVICE_COOKIE.length + 1)
      .split(".");
    const content = JSON.parse(Buffer.from(payload ?? "", "base64url").toString("utf8"));
    const rewritten = Buffer.from(JSON.stringify({ ...content, u: "admin" })).toString("base64url");
    const flipped = `${signature?.[0] === "A" ? "B" : "A"}${signature?.slice(1)}`;
    for (const value of [
      `${rewritten}.${signature}`,
      `${payload}.${flipped}`,
      `${payload}.`,
      `${payload}`,
      `.${signature}`,
      `${payload}.${signature}.extra`,
      "",
      "not a cookie",
    ]) {
      expect(readKnownDevice(`${KNOWN_DEVICE_COOKIE}=${value}`, "admin", key, now)).toBeNull();
    }
    expect(readKnownDevice(`${KNOWN_DEVICE_COOKIE}=${payload}.${signature}`, "eve", key, now)).toBe(device);
    expect(readKnownDevice(null, "admin", key, now)).toBeNull();
  });

  it("is nothing when signed content is not a device of an account (no id, a bad name, no expiry)", () => {
    // Signed as the server signs, so only the content's checks can refuse it.
    const signed = (content: unknown) => {
      const payload = Buffer.from(JSON.stringify(content)).toString("base64url");
      const signature = createHmac("sha256", key)
        .update(`receipt known device v1.${payload}`)
        .digest("base64url");
      return `${KNOWN_DEVICE_COOKIE}=${payload}.${signature}`;
    };
    expect(readKnownDevice(signed({ u: "admin", d: device, exp: now + 1000 }), "admin", key, now)).toBe(
      device,
    );
    for (const content of [
      { u: "admin", exp: now + 1000 },
      { u: "admin", d: "short", exp: now + 1000 },
      { u: "a b", d: device, exp: now + 1000 },
      { u: "admin", d: device },
      { u: "admin", d: device, exp: String(now + 1000) },
      [],
      "admin",
      null,
    ]) {
      expect(readKnownDevice(signed(content), "admin", key, now)).toBeNull();
    }
  });

  it("finds ours among several of the same name (one planted from a sibling subdomain)", () => {
    const planted = `${KNOWN_DEVICE_COOKIE}=e30.AAAA`;
    expect(readKnownDevice(`${planted}; ${cookieOf("admin")}`, "admin", key, now)).toBe(device);
    expect(readKnownDevice(`${cookieOf("admin")}; ${planted}`, "admin", key, now)).toBe(device);
  });
});
