import { sha256Hex } from "../contract/sha256";

const SESSION_HASH = /^sha256:[0-9a-f]{64}$/;

/**
 * `mcp.session.id` is the server's Mcp-Session-Id, which authorises requests on that session: only its hash is
 * stored. Idempotent, so that redacting a redacted span changes nothing.
 */
export function hashSessionId(sessionId: string): string {
  return SESSION_HASH.test(sessionId) ? sessionId : `sha256:${sha256Hex(sessionId)}`;
}

/** A catalog's tool names are kept only as these, enough to tell whether a called tool was offered. */
export function hashToolName(name: string): string {
  return sha256Hex(name).slice(0, 16);
}

/** A short stable id from any text, for ids built from span ids and session keys. */
export function shortHash(text: string, length = 32): string {
  return sha256Hex(text).slice(0, length);
}
