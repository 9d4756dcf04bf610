import { createHash, randomBytes } from "node:crypto";

// Keys carry 192 random bits, so a plain SHA-256 is enough to store them: there is nothing to brute-force.
export const KEY_PREFIX = "rcpt_";

export function generateKey(): string {
  return KEY_PREFIX + randomBytes(24).toString("base64url");
}

export function hashKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** The part of a key that may be shown again (in lists and logs) to tell keys apart. */
export function displayPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX.length + 4);
}

/** The key from `Authorization: Bearer <key>`, or null. */
export function bearerToken(header: string | null): string | null {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1] ?? null;
}
