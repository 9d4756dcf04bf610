import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * The known-device cookie of the sign-in throttle (OWASP's "device cookie"): a browser that signed in to an account
 * gets one naming that username and a random device id, signed with a key the server keeps (`server_keys`). Its
 * sign-ins to that account are counted on that device alone (lib/auth/sign-in-counters.ts), so an attacker hammering
 * the account from elsewhere cannot lock its owner out. It grants nothing else: the password is still checked, and
 * failures on the device lock that device.
 */
export const KNOWN_DEVICE_COOKIE = "receipt_device";
/** Renewed at each sign-in: a browser stays known while it signs in at least this often. */
export const KNOWN_DEVICE_DAYS = 180;

const DEVICE_ID = /^[A-Za-z0-9_-]{22}$/;
const USERNAME = /^[A-Za-z0-9._-]{1,64}$/;

export const newDeviceId = () => randomBytes(16).toString("base64url");

type Payload = { u: string; d: string; exp: number };

const sign = (payload: string, key: Buffer) =>
  createHmac("sha256", key).update(`receipt known device v1.${payload}`).digest("base64url");

/** The Set-Cookie header value that makes this browser a known device of `username`. */
export function knownDeviceCookie(
  username: string,
  deviceId: string,
  key: Buffer,
  secure: boolean,
  now = Date.now(),
): string {
  const content: Payload = { u: username, d: deviceId, exp: now + KNOWN_DEVICE_DAYS * 86_400_000 };
  const payload = Buffer.from(JSON.stringify(content)).toString("base64url");
  return [
    `${KNOWN_DEVICE_COOKIE}=${payload}.${sign(payload, key)}`,
    // Sign-in and the password change (/api/v1/me/password) read it; nothing else needs it.
    "Path=/api",
    "HttpOnly",
    "SameSite=Strict",
    `Max-Age=${KNOWN_DEVICE_DAYS * 86_400}`,
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}

/**
 * The device id of a known-device cookie this server signed for `username`, still in its time; null otherwise (none,
 * malformed, forged, another account's, expired). Several cookies of that name (one planted from a sibling
 * subdomain beside ours) are each checked.
 */
export function readKnownDevice(
  cookieHeader: string | null,
  username: string,
  key: Buffer,
  now = Date.now(),
): string | null {
  for (const part of cookieHeader?.split(";") ?? []) {
    const [name, value] = part.trim().split("=", 2);
    if (name !== KNOWN_DEVICE_COOKIE || !value) continue;
    const device = openCookie(value, key, now);
    if (device?.u === username) return device.d;
  }
  return null;
}

function openCookie(value: string, key: Buffer, now: number): Payload | null {
  const [payload, signature, extra] = value.split(".");
  if (!payload || !signature || extra !== undefined) return null;
  const expected = Buffer.from(sign(payload, key));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  try {
    const content = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Partial<Payload>;
    const valid =
      typeof content.u === "string" &&
      USERNAME.test(content.u) &&
      typeof content.d === "string" &&
      DEVICE_ID.test(content.d) &&
      typeof content.exp === "number" &&
      content.exp > now;
    return valid ? (content as Payload) : null;
  } catch {
    return null;
  }
}
