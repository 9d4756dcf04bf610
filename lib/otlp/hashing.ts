import { sha256Hex } from "../contract/sha256";

const SESSION_HASH = /^sha256:[0-9a-f]{64}$/;
/** Sessions repeat on every span of theirs: their hashes are remembered, up to this many. */
const MAX_REMEMBERED = 10_000;
const remembered = new Map<string, string>();

/**
 * `mcp.session.id` is the server's Mcp-Session-Id, which authorises requests on that session: only its SHA-256
 * is stored. Idempotent, so that redacting a redacted span changes nothing.
 */
export function hashSessionId(sessionId: string): string {
  if (SESSION_HASH.test(sessionId)) return sessionId;
  let hash = remembered.get(sessionId);
  if (hash === undefined) {
    if (remembered.size >= MAX_REMEMBERED) remembered.clear();
    hash = `sha256:${sha256Hex(sessionId)}`;
    remembered.set(sessionId, hash);
  }
  return hash;
}

/** A catalog's tool names are kept only as these, enough to tell whether a called tool was offered. */
export function hashToolName(name: string): string {
  return contentHash(name).slice(0, 16);
}

/**
 * A 128-bit hash of text, as 32 hex digits: ids derived from content (recordId, chain and session ids). Not a
 * cryptographic hash — nothing secret goes through it, and a producer chooses its record ids freely on the native
 * path anyway — but four independently mixed 32-bit lanes make accidental collisions negligible, and it is many
 * times faster than SHA-256 in plain TypeScript, which matters since every export re-assembles its sessions.
 */
export function contentHash(text: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x9e3779b9;
  let h3 = 0x85ebca6b;
  let h4 = 0xc2b2ae35;
  // Two UTF-16 code units a step (the length goes in last, so "a" and "a\0" differ).
  for (let i = 0; i < text.length; i += 2) {
    const code = (text.charCodeAt(i) << 16) | (i + 1 < text.length ? text.charCodeAt(i + 1) : 0);
    h1 = Math.imul(h1 ^ code, 0x01000193);
    h2 = Math.imul(h2 ^ code, 0x5bd1e995);
    h3 = Math.imul(h3 ^ code, 0x27d4eb2f);
    h4 = Math.imul(h4 ^ code, 0x165667b1);
  }
  h1 = Math.imul(h1 ^ text.length, 0x01000193);
  h1 = Math.imul(h1 ^ (h1 >>> 16), 0x85ebca6b) ^ h2;
  h2 = Math.imul(h2 ^ (h2 >>> 13), 0xc2b2ae35) ^ h3;
  h3 = Math.imul(h3 ^ (h3 >>> 16), 0x85ebca6b) ^ h4;
  h4 = Math.imul(h4 ^ (h4 >>> 13), 0xc2b2ae35) ^ h1;
  h1 = Math.imul(h1 ^ (h1 >>> 15), 0x2c1b3c6d) ^ h4;
  h2 = Math.imul(h2 ^ (h2 >>> 15), 0x297a2d39) ^ h1;
  h3 = Math.imul(h3 ^ (h3 >>> 15), 0x2c1b3c6d) ^ h2;
  h4 = Math.imul(h4 ^ (h4 >>> 15), 0x297a2d39) ^ h3;
  return [h1, h2, h3, h4].map((lane) => (lane >>> 0).toString(16).padStart(8, "0")).join("");
}
