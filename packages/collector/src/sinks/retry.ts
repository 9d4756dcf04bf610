/**
 * When to try a batch again. Statuses that say "later" (408, 425, 429, 5xx) and network errors are retried;
 * any other 4xx is the server's final word on that batch.
 */
export function isRetryable(status: number | undefined): boolean {
  return status === undefined || status === 408 || status === 425 || status === 429 || status >= 500;
}

/** `Retry-After` as milliseconds from `now`: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export type RetryPolicy = { baseDelayMs: number; maxDelayMs: number; maxRetryAfterMs: number };

/**
 * The wait before attempt `attempt + 1`. The server's `Retry-After` wins (up to `maxRetryAfterMs`), with up to
 * 10 % added so that agents told the same moment do not all come back in it; otherwise exponential backoff
 * with jitter over the upper half of the step.
 */
export function retryDelay(attempt: number, retryAfter: number | undefined, policy: RetryPolicy): number {
  if (retryAfter !== undefined) {
    const told = Math.min(retryAfter, policy.maxRetryAfterMs);
    return told + Math.random() * told * 0.1;
  }
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return step / 2 + Math.random() * (step / 2);
}

/**
 * Resolves after `ms`, or at once when `signal` aborts. The timer is unref'd: a wait between retries never
 * keeps the agent's process alive.
 */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    timer.unref();
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** Whether `promise` settled within `ms`; the timer holds the process only as long as the flush waits. */
export async function within(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, ms));
  });
  try {
    return await Promise.race([promise.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
