// Webhook signatures: HMAC-SHA256 over "<timestamp>.<body>", replay window.
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { OutboundRequest } from "@/lib/routing/requests";
import {
  SIGNATURE_HEADER,
  signatureHeaders,
  signRequest,
  TIMESTAMP_HEADER,
  verifySignature,
} from "@/lib/routing/sign";

const SECRET = "0123456789abcdef0123";
const BODY = JSON.stringify({ version: "receipt.alerts.v1", alerts: [] });
const NOW = 1_764_496_800_000;

describe("signatures", () => {
  it("signs 'timestamp.body' with HMAC-SHA256 as v1=<hex>", () => {
    const headers = signatureHeaders(BODY, SECRET, NOW);
    const expected = createHmac("sha256", SECRET).update(`${NOW}.${BODY}`).digest("hex");
    expect(headers).toEqual({ [TIMESTAMP_HEADER]: String(NOW), [SIGNATURE_HEADER]: `v1=${expected}` });
  });

  type Case = {
    name: string;
    body?: string;
    secret?: string;
    now: number;
    headers?: Record<string, string>;
    expected: string;
  };
  const cases: Case[] = [
    { name: "valid at once", now: NOW, expected: "ok" },
    { name: "valid at the tolerance edge", now: NOW + 300_000, expected: "ok" },
    { name: "replayed after the tolerance", now: NOW + 300_001, expected: "outside_tolerance" },
    { name: "from too far in the future", now: NOW - 300_001, expected: "outside_tolerance" },
    { name: "tampered body", body: `${BODY} `, now: NOW, expected: "bad_signature" },
    { name: "wrong secret", secret: "another-secret-000000", now: NOW, expected: "bad_signature" },
    { name: "missing headers", headers: {}, now: NOW, expected: "missing_headers" },
    {
      name: "timestamp swapped without re-signing",
      headers: { ...signatureHeaders(BODY, SECRET, NOW), [TIMESTAMP_HEADER]: String(NOW + 1) },
      now: NOW,
      expected: "bad_signature",
    },
    {
      name: "non-numeric timestamp",
      headers: { [TIMESTAMP_HEADER]: "soon", [SIGNATURE_HEADER]: "v1=00" },
      now: NOW,
      expected: "bad_timestamp",
    },
  ];
  it.each(cases)("$name → $expected", ({ body, secret, now, headers, expected }) => {
    const sent = headers ?? signatureHeaders(BODY, SECRET, NOW);
    const result = verifySignature(body ?? BODY, sent, secret ?? SECRET, now);
    expect(result.ok ? "ok" : result.reason).toBe(expected);
  });

  it("reads headers case-insensitively, from a plain object or a Headers instance", () => {
    const sent = signatureHeaders(BODY, SECRET, NOW);
    const lower = Object.fromEntries(Object.entries(sent).map(([k, v]) => [k.toLowerCase(), v]));
    expect(verifySignature(BODY, lower, SECRET, NOW).ok).toBe(true);
    expect(verifySignature(BODY, new Headers(sent), SECRET, NOW).ok).toBe(true);
  });

  it("signRequest adds headers to webhook requests only", () => {
    const base: OutboundRequest = {
      channel: "ops",
      targetIndex: 0,
      targetType: "webhook",
      url: "http://x",
      body: BODY,
      headers: {},
    };
    const signed = signRequest({ ...base, signingSecret: SECRET }, NOW);
    expect(verifySignature(signed.body, signed.headers, SECRET, NOW).ok).toBe(true);
    expect(signRequest({ ...base, targetType: "slack" }, NOW).headers).toEqual({});
  });
});
