// The one matcher syntax used everywhere (routes, silences, inhibition rules):
//   name op "value"      op ∈ {=, !=, =~, !~}, the value always double-quoted.
// Inside quotes, \" and \\ are escapes and \n is a newline; any other backslash is kept as is,
// so `reason=~"auth\..*"` and `reason=~"auth\\..*"` both mean the regex auth\..* .
// Regexes are anchored at both ends, exactly like Alertmanager. A missing label reads as "".
import { LAYERS, SEVERITIES, STATES, TRANSPORTS, type AlertLabels } from "./types";

export const MATCHER_OPS = ["=", "!=", "=~", "!~"] as const;
export type MatcherOp = (typeof MATCHER_OPS)[number];

export interface Matcher {
  name: string;
  op: MatcherOp;
  value: string;
  /** Present for =~ and !~: the anchored, compiled regex. */
  regex?: RegExp;
  /** Canonical text, used in explanations and errors. */
  text: string;
}

export type MatcherParse =
  | { ok: true; matcher: Matcher }
  | {
      ok: false;
      code: "invalid_matcher" | "unknown_label" | "unknown_value" | "invalid_regex" | "never_matches";
      message: string;
    };

/** Label names alerts carry (see alerts.ts); record labels are addressed as label.<key>. */
export const BUILTIN_LABELS = [
  "state",
  "layer",
  "reason",
  "severity",
  "server",
  "client",
  "tool",
  "transport",
  "chain",
  "shadowed_by",
] as const;
const RECORD_LABEL = /^label\.[a-z][a-z0-9_.-]{0,62}$/;

// Closed vocabularies: an equality matcher on a value outside them is a typo that would never match.
const CLOSED_VALUES: Record<string, readonly string[]> = {
  state: STATES,
  layer: LAYERS,
  severity: SEVERITIES,
  transport: TRANSPORTS,
  shadowed_by: ["", ...STATES],
};

const SYNTAX = /^\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*$/s;

export const isKnownLabelName = (name: string): boolean =>
  (BUILTIN_LABELS as readonly string[]).includes(name) || RECORD_LABEL.test(name);

function unescapeValue(raw: string): string {
  return raw.replace(/\\(.)/gs, (whole, ch: string) => {
    if (ch === '"' || ch === "\\") return ch;
    if (ch === "n") return "\n";
    return whole;
  });
}

const escapeValue = (value: string): string =>
  value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

/**
 * `refuseNeverMatching: false` accepts a regex that can never match (it is then a matcher that matches nothing): for
 * config versions saved before that rule existed, which must keep loading.
 */
export function parseMatcher(text: string, { refuseNeverMatching = true } = {}): MatcherParse {
  const parts = SYNTAX.exec(text);
  if (!parts) {
    return {
      ok: false,
      code: "invalid_matcher",
      message: `"${text}" is not a matcher; expected name op "value" with op one of = != =~ !~`,
    };
  }
  const name = parts[1] as string;
  const op = parts[2] as MatcherOp;
  const value = unescapeValue(parts[3] as string);
  if (!isKnownLabelName(name)) {
    return {
      ok: false,
      code: "unknown_label",
      message: `unknown label "${name}"; use one of ${BUILTIN_LABELS.join(", ")} or label.<key>`,
    };
  }
  const closed = CLOSED_VALUES[name];
  if (closed && (op === "=" || op === "!=") && !closed.includes(value)) {
    return { ok: false, code: "unknown_value", message: `"${value}" is not a valid ${name}` };
  }
  const canonical = `${name}${op}"${escapeValue(value)}"`;
  if (op === "=" || op === "!=") return { ok: true, matcher: { name, op, value, text: canonical } };
  let regex: RegExp;
  try {
    regex = new RegExp(`^(?:${value})$`);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { ok: false, code: "invalid_regex", message: `regex "${value}" does not compile: ${detail}` };
  }
  if (refuseNeverMatching && closed && regexNeverMatches(op, regex, closed)) {
    const which =
      op === "=~" ? `matches no valid ${name}` : `matches every ${name}, so the matcher never does`;
    return { ok: false, code: "never_matches", message: `regex "${value}" ${which} (${closed.join(", ")})` };
  }
  return { ok: true, matcher: { name, op, value, regex, text: canonical } };
}

/**
 * On a closed vocabulary a regex can be proven useless, like a typo in an equality (`state=~"tool_faild"`).
 * A negative regex is refused only when nothing, not even a missing label (read as ""), is left for it to match.
 */
function regexNeverMatches(op: "=~" | "!~", regex: RegExp, closed: readonly string[]): boolean {
  if (op === "=~") return !closed.some((value) => regex.test(value));
  return [...closed, ""].every((value) => regex.test(value));
}

/** Parse a matcher known to be valid (e.g. from a validated or stored config); throws otherwise. */
export function mustParseMatcher(text: string): Matcher {
  const parsed = parseMatcher(text, { refuseNeverMatching: false });
  if (!parsed.ok) throw new Error(`invalid matcher ${text}: ${parsed.message}`);
  return parsed.matcher;
}

export function matcherMatches(matcher: Matcher, labels: AlertLabels): boolean {
  const actual = labels[matcher.name] ?? "";
  switch (matcher.op) {
    case "=":
      return actual === matcher.value;
    case "!=":
      return actual !== matcher.value;
    case "=~":
      return matcher.regex?.test(actual) ?? false;
    case "!~":
      return !(matcher.regex?.test(actual) ?? false);
  }
}

/** Every matcher must match (an empty list matches everything). */
export const allMatch = (matchers: readonly Matcher[], labels: AlertLabels): boolean =>
  matchers.every((m) => matcherMatches(m, labels));
