// One delivery attempt over HTTP: POST the exact body with a hard timeout, report status, latency and a short error.
// Redirects are not followed: a notification's body must reach the configured URL or nobody. Every send passes the
// outbound guard: the URL before the request, each resolved address at connect time.
import http from "node:http";
import https from "node:https";
import { urlPort } from "@/lib/outbound/address-policy";
import { guardedLookup, OutboundRefusedError, refuseTarget } from "../outbound/outbound-guard";

export type PostResult = {
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  ok: boolean;
  /** The receiver's Retry-After header, as sent. */
  retryAfter: string | null;
  /** The outbound policy refused the destination: nothing was sent, and retrying will not help. */
  refused?: boolean;
};

/** Retrying will not help: the receiver refused the request itself (except for timeouts and rate limits). */
export const isPermanentRefusal = (statusCode: number | null): boolean =>
  statusCode !== null && statusCode >= 400 && statusCode < 500 && ![408, 425, 429].includes(statusCode);

// Keep-alive agents shared by every delivery: a busy target reuses its connections instead of a handshake per POST.
// node:http rather than fetch: the delivery engine's CPU per POST is most of its cost (npm run bench:deliveries).
const agents = {
  "http:": new http.Agent({ keepAlive: true }),
  "https:": new https.Agent({ keepAlive: true }),
};

export function postOnce(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  /** The target's kind: Slack and PagerDuty targets post only to their vendor's host (lib/outbound/target-rules). */
  targetType = "webhook",
): Promise<PostResult> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    const settle = (result: Omit<PostResult, "latencyMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, latencyMs: latency() });
    };
    const failed = (error: unknown) =>
      settle({
        statusCode: null,
        ok: false,
        error: timedOut ? `timeout after ${timeoutMs} ms` : errorText(error),
        retryAfter: null,
        ...(error instanceof OutboundRefusedError ? { refused: true } : {}),
      });
    try {
      const target = new URL(url);
      if (target.protocol !== "http:" && target.protocol !== "https:")
        throw new Error(`unsupported protocol ${target.protocol}`);
      const refusal = refuseTarget({ type: targetType, url });
      if (refusal) {
        settle({ statusCode: null, ok: false, error: refusal.message, retryAfter: null, refused: true });
        return;
      }
      const payload = Buffer.from(body, "utf8");
      const transport = target.protocol === "https:" ? https : http;
      const request = transport.request(
        target,
        {
          method: "POST",
          agent: agents[target.protocol],
          lookup: guardedLookup(urlPort(target)),
          headers: { "user-agent": "Receipt-Alerts/1", ...headers, "content-length": String(payload.length) },
        },
        (response) => {
          // Drain so the connection can be reused; the receiver's answer is not logged (it could echo anything).
          response.resume();
          response.on("error", failed);
          response.on("end", () => {
            const status = response.statusCode ?? 0;
            const ok = status >= 200 && status < 300;
            const retryAfter = response.headers["retry-after"];
            settle({
              statusCode: status,
              ok,
              error: ok ? null : `HTTP ${status}`,
              retryAfter: typeof retryAfter === "string" ? retryAfter : null,
            });
          });
        },
      );
      timer = setTimeout(() => {
        timedOut = true;
        request.destroy();
        failed(null);
      }, timeoutMs);
      request.on("error", failed);
      request.end(payload);
    } catch (error) {
      failed(error);
    }
  });
}

function errorText(error: unknown): string {
  if (error instanceof OutboundRefusedError) return error.message;
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return (typeof code === "string" ? code : error.message).slice(0, 200);
  }
  return "unknown error";
}

/** Exponential backoff with ±20% jitter, so many failing deliveries do not retry in lockstep. */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  const exact = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exact * (0.8 + 0.4 * random()));
}
