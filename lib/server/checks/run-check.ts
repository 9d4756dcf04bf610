// One check against one chain's values: bounded attempts with backoff, at most a few reads of one destination at a
// time, and a decision that holds no content (lib/checks/decide.ts).
import { type CheckDecision, decideHttp, decideSql } from "@/lib/checks/decide";
import type { TCheck } from "@/lib/checks/config";
import { renderTemplate, type TemplateValues } from "@/lib/checks/template";
import { DestinationUnreadable, readHttp, readSql } from "./read-destination";

/** Reads of one destination (a URL's host, a connection) in flight at once, across every chain being checked. */
const PER_DESTINATION = 4;
const inFlight = new Map<string, { running: number; waiting: (() => void)[] }>();

async function withDestinationSlot<T>(destination: string, read: () => Promise<T>): Promise<T> {
  const slot = inFlight.get(destination) ?? { running: 0, waiting: [] };
  inFlight.set(destination, slot);
  if (slot.running >= PER_DESTINATION) await new Promise<void>((resolve) => slot.waiting.push(resolve));
  slot.running++;
  try {
    return await read();
  } finally {
    slot.running--;
    const next = slot.waiting.shift();
    if (next) next();
    else if (slot.running === 0) inFlight.delete(destination);
  }
}

const unknown = (receipt: string): CheckDecision => ({ effect: "unknown", outcome: null, receipt });

export type CheckEnv = Readonly<Record<string, string | undefined>>;

/** Runs `check` for one chain; never throws: what could not be read is an unknown effect with the reason. */
export async function runCheck(
  check: TCheck,
  values: TemplateValues,
  env: CheckEnv,
  backoffMs = 200,
): Promise<CheckDecision> {
  const read = readerFor(check, values, env);
  if ("decision" in read) return read.decision;
  let last = unknown("not run");
  for (let attempt = 1; attempt <= check.attempts; attempt++) {
    try {
      const decision = await withDestinationSlot(read.destination, read.run);
      // An answer that is neither yes nor no (a 5xx, an unexpected status) may be a passing hiccup: try again.
      if (decision.effect !== "unknown") return decision;
      last = decision;
    } catch (error) {
      if (!(error instanceof DestinationUnreadable)) throw error;
      last = unknown(error.message);
      if (!error.retry) return last;
    }
    if (attempt < check.attempts)
      await new Promise((resolve) => setTimeout(resolve, backoffMs * 2 ** (attempt - 1)));
  }
  return last;
}

type Reader = { decision: CheckDecision } | { destination: string; run: () => Promise<CheckDecision> };

function readerFor(check: TCheck, values: TemplateValues, env: CheckEnv): Reader {
  if (check.http) {
    const http = check.http;
    const rendered = renderTemplate(http.url, values);
    if ("missing" in rendered) return { decision: unknown(`the chain has no ${rendered.missing}`) };
    const headers: Record<string, string> = {};
    for (const [name, variable] of Object.entries(http.headersFromEnv)) {
      const value = env[variable];
      if (!value) return { decision: unknown(`${variable} is not set`) };
      headers[name] = value;
    }
    return {
      destination: new URL(rendered.url).host,
      run: async () => decideHttp(http, await readHttp(http.method, rendered.url, headers, check.timeoutMs)),
    };
  }
  const sql = check.sql;
  if (!sql) return { decision: unknown("the check reads nothing") };
  const connection = env[sql.connection];
  if (!connection) return { decision: unknown(`${sql.connection} is not set`) };
  if (!values.operationKey) return { decision: unknown("the chain has no operationKey") };
  const key = values.operationKey;
  return {
    destination: `sql:${sql.connection}`,
    run: async () => decideSql(sql, await readSql(connection, sql.query, key, check.timeoutMs)),
  };
}
