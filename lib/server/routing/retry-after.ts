// A receiver's Retry-After (RFC 9110 §10.2.3): delay-seconds or an HTTP-date. Pure.

/**
 * How long to wait, in ms, from `nowMs`, or null when the header is absent or unreadable. A date in the past means 0.
 * The caller caps the result: a receiver must not park a delivery for days.
 */
export function retryAfterMs(header: string | null | undefined, nowMs: number): number | null {
  const value = header?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // An HTTP-date always names a weekday and GMT; anything else Date.parse might accept is not one.
  if (!/^[A-Za-z]{3},? .*GMT$/.test(value)) return null;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/** Retry-After is a rate-limit or maintenance answer only on these statuses. */
export const honoursRetryAfter = (statusCode: number | null): boolean =>
  statusCode === 429 || statusCode === 503;
