// What a destination's answer means for the effect (committed / absent / unknown) and, when the check asserts one,
// the outcome (pass / fail). Only a decision and a short receipt leave here: never the response body or a row. Pure.
import type { TCheck } from "./config";

export type CheckEffect = "committed" | "absent" | "unknown";

export type CheckDecision = {
  effect: CheckEffect;
  /** Whether the destination shows the job done right; null when the check asserts nothing or could not read. */
  outcome: "pass" | "fail" | null;
  /** What was seen, short and free of content: "HTTP 200", "1 row", "timeout after 5000 ms". */
  receipt: string;
};

type Scalar = string | number | boolean | null;

/** RFC 6901: "" is the document, "/a/0" walks objects and arrays, "~1" is "/" and "~0" is "~". */
export function readPointer(
  document: unknown,
  pointer: string,
): { found: true; value: unknown } | { found: false } {
  if (pointer === "") return { found: true, value: document };
  let current: unknown = document;
  for (const raw of pointer.slice(1).split("/")) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(current) && /^(0|[1-9]\d*)$/.test(token) && Number(token) < current.length)
      current = current[Number(token)];
    else if (
      current !== null &&
      typeof current === "object" &&
      !Array.isArray(current) &&
      Object.hasOwn(current, token)
    )
      current = (current as Record<string, unknown>)[token];
    else return { found: false };
  }
  return { found: true, value: current };
}

const sameScalar = (value: unknown, expected: Scalar): boolean =>
  value === expected ||
  (typeof value === "number" && typeof expected === "string" && String(value) === expected);

/** An HTTP answer: its status by the check's lists, its JSON body against the outcome assertion when there is one. */
export function decideHttp(
  http: NonNullable<TCheck["http"]>,
  answer: { status: number; body: string | null },
): CheckDecision {
  const receipt = `HTTP ${answer.status}`;
  if (http.absent.includes(answer.status)) return { effect: "absent", outcome: null, receipt };
  if (!http.committed.includes(answer.status)) return { effect: "unknown", outcome: null, receipt };
  if (!http.outcome) return { effect: "committed", outcome: null, receipt };
  let body: unknown;
  try {
    body = answer.body === null ? undefined : JSON.parse(answer.body);
  } catch {
    return { effect: "committed", outcome: null, receipt: `${receipt}, body not JSON` };
  }
  const read = readPointer(body, http.outcome.pointer);
  return {
    effect: "committed",
    outcome: read.found && sameScalar(read.value, http.outcome.equals) ? "pass" : "fail",
    receipt,
  };
}

/** A query's rows: one or more is committed, none absent; the first row's column against the assertion. */
export function decideSql(
  sql: NonNullable<TCheck["sql"]>,
  rows: readonly Record<string, unknown>[],
): CheckDecision {
  const receipt = `${rows.length} row${rows.length === 1 ? "" : "s"}`;
  const [first] = rows;
  if (!first) return { effect: "absent", outcome: null, receipt };
  if (!sql.outcome) return { effect: "committed", outcome: null, receipt };
  const value = first[sql.outcome.column];
  return { effect: "committed", outcome: sameScalar(value, sql.outcome.equals) ? "pass" : "fail", receipt };
}

/** Whether a check applies to a chain: every given field equal, every given label present with that value. */
export function checkMatches(
  check: Pick<TCheck, "match">,
  facts: { server: string | null; tool: string | null; labels: Readonly<Record<string, string>> },
): boolean {
  const { server, tool, labels } = check.match;
  if (server !== undefined && server !== facts.server) return false;
  if (tool !== undefined && tool !== facts.tool) return false;
  return Object.entries(labels).every(([name, value]) => facts.labels[name] === value);
}

/**
 * The checks that read the destination of a server's tool (coverage): those whose server and tool match; one that also
 * names labels covers only the chains that carry them, and says so.
 */
export function checksCovering(
  checks: readonly Pick<TCheck, "name" | "match">[],
  server: string | null,
  tool: string,
): string[] {
  return checks
    .filter((check) => (check.match.server ?? server) === server && (check.match.tool ?? tool) === tool)
    .map((check) =>
      Object.keys(check.match.labels).length > 0 ? `${check.name} (some labels)` : check.name,
    );
}
