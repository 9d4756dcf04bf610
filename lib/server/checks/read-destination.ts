// The two ways a check reads a destination. HTTP goes through the outbound guard like every send (lib/server/outbound):
// the URL before the request, each resolved address at connect time. SQL runs one statement in a READ ONLY
// transaction with a statement timeout, on a connection opened for it and closed after. Neither keeps what it read
// beyond what the decision needs (a status and at most 64 KiB of body; the rows of one query).
import http from "node:http";
import https from "node:https";
import pg from "pg";
import { urlPort } from "@/lib/outbound/address-policy";
import { guardedLookup, OutboundRefusedError, refuseTarget } from "../outbound/outbound-guard";

const MAX_BODY_BYTES = 64 * 1024;

/** A read that gave no answer: the check's result is unknown, and `retry` says whether another attempt may help. */
export class DestinationUnreadable extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
  ) {
    super(message);
  }
}

export function readHttp(
  method: "GET" | "HEAD",
  url: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<{ status: number; body: string | null }> {
  const refusal = refuseTarget({ type: "check", url });
  if (refusal) return Promise.reject(new DestinationUnreadable(refusal.message, false));
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const transport = target.protocol === "https:" ? https : http;
    const request = transport.request(
      target,
      {
        method,
        headers: { "user-agent": "Receipt-Checks/1", accept: "application/json", ...headers },
        lookup: guardedLookup(urlPort(target)),
        timeout: timeoutMs,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_BODY_BYTES) chunks.push(chunk);
        });
        response.on("error", (error) => reject(new DestinationUnreadable(error.message, true)));
        response.on("end", () => {
          const status = response.statusCode ?? 0;
          resolve({ status, body: method === "HEAD" ? null : Buffer.concat(chunks).toString("utf8") });
        });
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      reject(new DestinationUnreadable(`timeout after ${timeoutMs} ms`, true));
    }, timeoutMs);
    request.on("close", () => clearTimeout(timer));
    request.on("error", (error) => {
      clearTimeout(timer);
      if (error instanceof OutboundRefusedError) reject(new DestinationUnreadable(error.message, false));
      else reject(new DestinationUnreadable((error as { code?: string }).code ?? error.message, true));
    });
    request.end();
  });
}

export async function readSql(
  connectionString: string,
  query: string,
  operationKey: string,
  timeoutMs: number,
): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({
    connectionString,
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
    application_name: "receipt-check",
  });
  // A dropped connection is reported by the query it breaks; without a listener it would end the process.
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("begin read only");
    const result = await client.query(query, [operationKey]);
    await client.query("rollback");
    return result.rows as Record<string, unknown>[];
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string" && code.startsWith("E"))
      throw new DestinationUnreadable(`cannot connect (${code})`, true);
    // A statement the database refuses (syntax, permissions, a write) will be refused again.
    const retry = typeof code !== "string" || /^(08|53|57)/.test(code);
    throw new DestinationUnreadable(
      typeof code === "string" ? `query failed (${code})` : "query failed",
      retry,
    );
  } finally {
    await client.end().catch(() => {});
  }
}
