import { randomBytes } from "node:crypto";
import { KNOWN_DEVICE_COOKIE, knownDeviceCookie, readKnownDevice } from "@/lib/auth/known-device";
import { findOrCreateServerKey } from "../db/server-keys";

// The key of the known-device cookie (lib/auth/known-device.ts) lives in `server_keys`, made on first use, so every
// instance signs and checks with the same one. It is read per use, not cached: deleting the row voids every known
// device at once, on every instance.
const signingKey = () => findOrCreateServerKey("known_device", randomBytes(32));

/** The device id of this request's known-device cookie for `username`, or null (none, forged, another account's). */
export async function recognisedDevice(
  cookieHeader: string | null,
  username: string,
): Promise<string | null> {
  if (!cookieHeader?.includes(`${KNOWN_DEVICE_COOKIE}=`)) return null;
  return readKnownDevice(cookieHeader, username, await signingKey());
}

/** The Set-Cookie value that makes this browser (`deviceId`) a known device of `username`. */
export async function knownDeviceSetCookie(
  username: string,
  deviceId: string,
  secure: boolean,
): Promise<string> {
  return knownDeviceCookie(username, deviceId, await signingKey(), secure);
}
