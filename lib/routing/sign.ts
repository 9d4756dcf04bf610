// Server-only (node:crypto): webhook signatures. Never import this from client code; the rest of
// lib/routing is client-safe. (The "server-only" package is not installed in this repo, so the
// guard is this comment plus the import of node:crypto, which a client bundle cannot resolve.)
//
// Scheme: HMAC-SHA256 over `${timestamp}.${body}` with the target's secret, where timestamp is
// Unix milliseconds. Binding the timestamp into the MAC is what makes the replay window enforceable.
import { createHmac, timingSafeEqual } from "node:crypto";
import type { OutboundRequest } from "./requests";

export const TIMESTAMP_HEADER = "X-Receipt-Timestamp";
export const SIGNATURE_HEADER = "X-Receipt-Signature";
export const SIGNATURE_VERSION = "v1";
export const DEFAULT_TOLERANCE_MS = 300_000;

export function computeSignature(body: string, timestamp: string, secret: string): string {
  return createHmac("sha256", secret).update(`${timestamp}.${body}`, "utf8").digest("hex");
}

export function signatureHeaders(body: string, secret: string, nowMs: number): Record<string, string> {
  const timestamp = String(Math.trunc(nowMs));
  return {
    [TIMESTAMP_HEADER]: timestamp,
    [SIGNATURE_HEADER]: `${SIGNATURE_VERSION}=${computeSignature(body, timestamp, secret)}`,
  };
}

/** The request with signature headers added (webhook targets); others are returned unchanged. */
export function signRequest(request: OutboundRequest, nowMs: number): OutboundRequest {
  if (request.signingSecret === undefined) return request;
  return {
    ...request,
    headers: { ...request.headers, ...signatureHeaders(request.body, request.signingSecret, nowMs) },
  };
}

export type VerifyResult =
  | { ok: true }
  | { ok: false; reason: "missing_headers" | "bad_timestamp" | "outside_tolerance" | "bad_signature" };

/** Headers are looked up case-insensitively (HTTP header names are). */
function header(headers: Record<string, string | undefined> | Headers, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : headers[key];
}

/**
 * Verify a received webhook: the signature matches the exact body bytes, and the timestamp is
 * within `toleranceMs` of `nowMs` either way (rejects replays and badly skewed clocks).
 * A receiver that must also reject replays inside the window should remember seen signatures.
 */
export function verifySignature(
  body: string,
  headers: Record<string, string | undefined> | Headers,
  secret: string,
  nowMs: number,
  toleranceMs: number = DEFAULT_TOLERANCE_MS,
): VerifyResult {
  const timestamp = header(headers, TIMESTAMP_HEADER);
  const signature = header(headers, SIGNATURE_HEADER);
  if (timestamp === undefined || signature === undefined) return { ok: false, reason: "missing_headers" };
  if (!/^\d{1,16}$/.test(timestamp)) return { ok: false, reason: "bad_timestamp" };
  if (Math.abs(nowMs - Number(timestamp)) > toleranceMs) return { ok: false, reason: "outside_tolerance" };
  const expected = Buffer.from(`${SIGNATURE_VERSION}=${computeSignature(body, timestamp, secret)}`, "utf8");
  const given = Buffer.from(signature, "utf8");
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: "bad_signature" };
  return { ok: true };
}
