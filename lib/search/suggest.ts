import { STATES } from "../contract/states";
import { SEARCH_KEYS, type SearchKey, type SearchQuery } from "./query";

/** How many suggestions the box shows at once. */
export const SUGGESTIONS_MAX = 8;

/** The token being typed at the caret: its key, the value typed so far, and the span to replace. */
export type TypedToken = { key: SearchKey; prefix: string; start: number; end: number };

/**
 * The `key:value` token the caret is in (or right after), when its key is a search key; undefined for a free word,
 * a closed quoted value or white space. `ser` alone is no token yet: suggesting keys is the box's own job.
 */
export function typedToken(input: string, caret: number): TypedToken | undefined {
  let start = caret;
  while (start > 0 && !/\s/u.test(input[start - 1] as string)) start--;
  let end = caret;
  while (end < input.length && !/\s/u.test(input[end] as string)) end++;
  const term = input.slice(start, end);
  const colon = term.indexOf(":");
  if (colon < 0) return undefined;
  const key = term.slice(0, colon).toLowerCase();
  if (!(SEARCH_KEYS as readonly string[]).includes(key)) return undefined;
  let prefix = term.slice(colon + 1);
  if (prefix.startsWith('"')) {
    if (prefix.length > 1 && prefix.endsWith('"')) return undefined;
    prefix = prefix.slice(1);
  }
  // A state list suggests for its last name only (`state:tool_failed,fal`).
  if (key === "state") prefix = prefix.slice(prefix.lastIndexOf(",") + 1);
  return { key: key as SearchKey, prefix, start, end };
}

/** Stored values for the keys, as the facets endpoint gives them, and the values of the label key being typed. */
export type SuggestionSource = {
  servers: string[];
  tools: string[];
  clients: string[];
  labelKeys: string[];
  labelValues?: { key: string; values: string[] };
};

/** The label key a `label:key:…` token has complete, whose values are worth fetching; undefined otherwise. */
export function typedLabelKey(token: TypedToken | undefined): string | undefined {
  if (token?.key !== "label") return undefined;
  const match = /^([a-z][a-z0-9_.-]{0,62}):/.exec(token.prefix);
  return match?.[1];
}

/** One suggestion: the text the token becomes, and what to show. */
export type Suggestion = { token: string; label: string };

/**
 * Up to SUGGESTIONS_MAX values for the token being typed: stored ones starting with what is typed (case-insensitive),
 * then ones merely containing it. A label suggests its keys (`label:team:`) until a key is complete.
 */
export function suggestValues(token: TypedToken, source: SuggestionSource, input = ""): Suggestion[] {
  const typed = token.prefix.toLowerCase();
  const pick = (values: readonly string[]) => {
    const starts = values.filter((value) => value.toLowerCase().startsWith(typed));
    const contains = values.filter(
      (value) => !value.toLowerCase().startsWith(typed) && value.toLowerCase().includes(typed),
    );
    return [...starts, ...contains].slice(0, SUGGESTIONS_MAX);
  };
  const quoted = (value: string) => (/[\s"]/u.test(value) ? `"${value.replaceAll('"', "")}"` : value);
  switch (token.key) {
    case "state": {
      const term = input.slice(token.start, token.end);
      const before = term.slice(term.indexOf(":") + 1, term.length - token.prefix.length);
      return pick(STATES).map((state) => ({ token: `state:${before}${state}`, label: state }));
    }
    case "label": {
      const key = typedLabelKey(token);
      if (key === undefined) {
        return pick(source.labelKeys).map((labelKey) => ({
          token: `label:${labelKey}:`,
          label: `${labelKey}:…`,
        }));
      }
      if (source.labelValues?.key !== key) return [];
      const typedValue = token.prefix
        .slice(key.length + 1)
        .replace(/^"/, "")
        .toLowerCase();
      const values = source.labelValues.values.filter((value) => value.toLowerCase().includes(typedValue));
      return values
        .slice(0, SUGGESTIONS_MAX)
        .map((value) => ({ token: `label:${key}:${quoted(value)}`, label: `${key}:${value}` }));
    }
    default: {
      const values = { server: source.servers, tool: source.tools, client: source.clients }[token.key];
      return pick(values).map((value) => ({ token: `${token.key}:${quoted(value)}`, label: value }));
    }
  }
}

/** The input with the typed token replaced by a suggestion; a finished value gets a space after it. */
export function applySuggestion(
  input: string,
  token: TypedToken,
  suggestion: Suggestion,
): {
  text: string;
  caret: number;
} {
  const open = suggestion.token.endsWith(":");
  const rest = input.slice(token.end).replace(/^\s+/u, "");
  const inserted = open ? suggestion.token : `${suggestion.token} `;
  return { text: `${input.slice(0, token.start)}${inserted}${rest}`, caret: token.start + inserted.length };
}

/** The chain list's URL for a query of tokens only (`/chains?server=…&state=a,b&label=…`): the list users know. */
export function chainsListPath(query: Pick<SearchQuery, "server" | "tool" | "client" | "states" | "labels">) {
  const params = new URLSearchParams();
  if (query.states.length > 0) params.set("state", query.states.join(","));
  if (query.server !== undefined) params.set("server", query.server);
  if (query.tool !== undefined) params.set("tool", query.tool);
  if (query.client !== undefined) params.set("client", query.client);
  for (const label of query.labels) params.append("label", label);
  const text = params.toString();
  return text ? `/chains?${text}` : "/chains";
}

/**
 * The keys a bare word at the caret could be the start of (`se` → `server:`), so the box teaches its own syntax;
 * undefined once the word holds a colon or matches no key.
 */
export function typedKeyPrefix(
  input: string,
  caret: number,
): (TypedToken & { suggestions: Suggestion[] }) | undefined {
  let start = caret;
  while (start > 0 && !/\s/u.test(input[start - 1] as string)) start--;
  let end = caret;
  while (end < input.length && !/\s/u.test(input[end] as string)) end++;
  const word = input.slice(start, end).toLowerCase();
  if (!word || word.includes(":") || word.includes('"')) return undefined;
  const keys = SEARCH_KEYS.filter((key) => key.startsWith(word));
  if (keys.length === 0) return undefined;
  const suggestions = keys.map((key) => ({ token: `${key}:`, label: `${key}:` }));
  return { key: keys[0] as SearchKey, prefix: word, start, end, suggestions };
}
