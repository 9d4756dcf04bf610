// One delivery attempt over HTTP: POST the exact body with a hard timeout, report status, latency and a short error.
// Redirects are not followed: a notification's body must reach the configured URL or nobody.

export type PostResult = {
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  ok: boolean;
  /** The receiver's Retry-After header, as sent. */
  retryAfter: string | null;
};

/** Retrying will not help: the receiver refused the request itself (except for timeouts and rate limits). */
export const isPermanentRefusal = (statusCode: number | null): boolean =>
  statusCode !== null && statusCode >= 400 && statusCode < 500 && ![408, 425, 429].includes(statusCode);

export async function postOnce(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<PostResult> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "user-agent": "Receipt-Alerts/1", ...headers },
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    // Drain so the connection can be reused; the receiver's answer is not logged (it could echo anything).
    await response.arrayBuffer().catch(() => undefined);
    const ok = response.status >= 200 && response.status < 300;
    return {
      statusCode: response.status,
      latencyMs: latency(),
      ok,
      error: ok ? null : `HTTP ${response.status}`,
      retryAfter: response.headers.get("retry-after"),
    };
  } catch (error) {
    return {
      statusCode: null,
      latencyMs: latency(),
      ok: false,
      error: errorText(error, timeoutMs),
      retryAfter: null,
    };
  }
}

function errorText(error: unknown, timeoutMs: number): string {
  if (error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError"))
    return `timeout after ${timeoutMs} ms`;
  if (error instanceof Error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return (cause?.code ?? cause?.message ?? error.message).slice(0, 200);
  }
  return "unknown error";
}

/** Exponential backoff with ±20% jitter, so many failing deliveries do not retry in lockstep. */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  const exact = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exact * (0.8 + 0.4 * random()));
}
