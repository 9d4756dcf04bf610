import { STATES, type State } from "../contract/states";

/** The token keys the search box understands (`server:fs`, `state:false_success`, `label:team:reports`). */
export const SEARCH_KEYS = ["server", "tool", "client", "state", "label"] as const;
export type SearchKey = (typeof SEARCH_KEYS)[number];

/** The longest query the parser reads; past it, it refuses before looking at a character. */
export const SEARCH_INPUT_MAX = 512;
/** At most this many words and tokens in one query, of which at most SEARCH_WORDS_MAX free words. */
export const SEARCH_TERMS_MAX = 16;
export const SEARCH_WORDS_MAX = 4;
/** The longest server, tool or client name a token takes (the chain list's own bound). */
export const SEARCH_NAME_MAX = 128;
/** The longest value of one token or one word (ids and names are stored up to 256 characters). */
export const SEARCH_VALUE_MAX = 256;

const LABEL = /^[a-z][a-z0-9_.-]{0,62}:/s;

/** One term of the query as typed: where it starts and ends in the input (UTF-16 offsets, end exclusive). */
export type SearchSpan = { text: string; start: number; end: number };

/**
 * A word that looks like a token (`env:prod`) but whose key is none of SEARCH_KEYS. Ids often carry such a prefix
 * (`chain:…`, `op:…`), so the caller decides: an id that starts with the word makes it a word, otherwise it is the
 * error `unknownKeyError` describes.
 */
export type KeyLikeWord = SearchSpan & { key: string };

export type SearchQuery = {
  /** Free words: ids to match exactly, then by prefix. */
  words: SearchSpan[];
  /** Words shaped like an unknown token; see KeyLikeWord. */
  keyLike: KeyLikeWord[];
  server?: string;
  tool?: string;
  client?: string;
  /** Any of these states (repeated `state:` tokens and commas are alternatives). */
  states: State[];
  /** `key:value` labels, all required. */
  labels: string[];
};

export type SearchErrorCode =
  | "empty_query"
  | "too_long"
  | "too_many_terms"
  | "unclosed_quote"
  | "missing_value"
  | "value_too_long"
  | "unknown_token"
  | "unknown_state"
  | "repeated_token"
  | "invalid_label";

export type SearchError = { code: SearchErrorCode; message: string; token: SearchSpan };

export type SearchParse = { ok: true; query: SearchQuery } | { ok: false; error: SearchError };

type RawTerm = SearchSpan & { key?: string; value: string; quoted: boolean };

/**
 * Parses the header box's query: free words and `key:value` tokens, separated by white space; a value (or a whole
 * word) may be double-quoted to hold spaces (`server:"files a"`, `"chain:x y"`). Keys are case-insensitive, values
 * are not. Linear in the input and bounded by SEARCH_INPUT_MAX, so any input costs at most one short pass.
 */
export function parseSearchQuery(input: string): SearchParse {
  if (input.length > SEARCH_INPUT_MAX) {
    return fail("too_long", `a query holds at most ${SEARCH_INPUT_MAX} characters`, {
      text: input.slice(SEARCH_INPUT_MAX, SEARCH_INPUT_MAX + 20),
      start: SEARCH_INPUT_MAX,
      end: input.length,
    });
  }
  const terms = splitTerms(input);
  if ("code" in terms) return { ok: false, error: terms };
  const query: SearchQuery = { words: [], keyLike: [], states: [], labels: [] };
  for (const term of terms) {
    if (term.value.length > SEARCH_VALUE_MAX) {
      return fail("value_too_long", `a value holds at most ${SEARCH_VALUE_MAX} characters`, term);
    }
    const error = addTerm(query, term);
    if (error) return { ok: false, error };
  }
  const empty =
    query.words.length + query.keyLike.length + query.states.length + query.labels.length === 0 &&
    query.server === undefined &&
    query.tool === undefined &&
    query.client === undefined;
  if (empty) {
    return fail("empty_query", "type an id, or a token such as server:files", { text: "", start: 0, end: 0 });
  }
  const words = [...query.words, ...query.keyLike].sort((a, b) => a.start - b.start);
  const extra = words[SEARCH_WORDS_MAX];
  if (extra) return fail("too_many_terms", `a query holds at most ${SEARCH_WORDS_MAX} free words`, extra);
  return { ok: true, query };
}

function addTerm(query: SearchQuery, term: RawTerm): SearchError | undefined {
  const span = { text: term.text, start: term.start, end: term.end };
  if (term.key === undefined) {
    if (term.value) query.words.push({ ...span, text: term.value });
    return undefined;
  }
  const key = term.key.toLowerCase();
  if (!(SEARCH_KEYS as readonly string[]).includes(key)) {
    query.keyLike.push({ ...span, key: term.key });
    return undefined;
  }
  if (!term.value) {
    return failure("missing_value", `\`${key}:\` needs a value, such as ${EXAMPLES[key as SearchKey]}`, span);
  }
  switch (key as SearchKey) {
    case "state":
      for (const name of term.value.split(",")) {
        const state = name.trim().toLowerCase();
        if (!state) continue;
        if (!(STATES as readonly string[]).includes(state)) {
          return failure(
            "unknown_state",
            `unknown state \`${state}\`; states are ${STATES.join(", ")}`,
            span,
          );
        }
        if (!query.states.includes(state as State)) query.states.push(state as State);
      }
      if (query.states.length === 0) return failure("missing_value", "`state:` needs a state name", span);
      return undefined;
    case "label":
      if (!LABEL.test(term.value)) {
        return failure(
          "invalid_label",
          "a label token is `label:key:value` with a lower-case key, such as label:team:reports",
          span,
        );
      }
      if (!query.labels.includes(term.value)) query.labels.push(term.value);
      return undefined;
    default: {
      const name = key as "server" | "tool" | "client";
      if (term.value.length > SEARCH_NAME_MAX) {
        return failure("value_too_long", `a ${name} name holds at most ${SEARCH_NAME_MAX} characters`, span);
      }
      const given = query[name];
      if (given !== undefined && given !== term.value) {
        return failure("repeated_token", `\`${name}:\` may appear once (a chain has one ${name})`, span);
      }
      query[name] = term.value;
      return undefined;
    }
  }
}

const EXAMPLES: Record<SearchKey, string> = {
  server: "server:files",
  tool: "tool:read_file",
  client: "client:claude",
  state: "state:false_success",
  label: "label:team:reports",
};

/** The error for a key-like word that names nothing stored, with the closest key when one is near. */
export function unknownKeyError(word: KeyLikeWord): SearchError {
  const near = SEARCH_KEYS.find((key) => editDistance(key, word.key.toLowerCase()) <= 2);
  const hint = near ? `; did you mean \`${near}:\`?` : "";
  return failure(
    "unknown_token",
    `unknown search key \`${word.key}:\` (keys are ${SEARCH_KEYS.join(", ")}; quote an id that holds a colon)${hint}`,
    { text: word.text, start: word.start, end: word.end },
  );
}

const KEY = /^([A-Za-z][A-Za-z0-9_-]{0,31}):/;
const SPACE = /\s/u;
const LABEL_KEY_BEFORE_QUOTE = /^[a-z][a-z0-9_.-]{0,62}:(?=")/;

/** Splits on white space outside quotes; each term keeps its span, its key (before the first colon) and value. */
function splitTerms(input: string): RawTerm[] | SearchError {
  const terms: RawTerm[] = [];
  let i = 0;
  while (i < input.length) {
    if (SPACE.test(input[i] as string)) {
      i++;
      continue;
    }
    const start = i;
    let key: string | undefined;
    let quoted = false;
    if (input[i] !== '"') {
      const match = KEY.exec(input.slice(i, i + 33));
      if (match) {
        key = match[1];
        i += (match[0] as string).length;
      }
    }
    let value = "";
    // A label's value may be quoted after its key: label:team:"data platform".
    if (key?.toLowerCase() === "label") {
      const labelKey = LABEL_KEY_BEFORE_QUOTE.exec(input.slice(i, i + 65));
      if (labelKey) {
        value = labelKey[0];
        i += value.length;
      }
    }
    if (input[i] === '"') {
      const close = input.indexOf('"', i + 1);
      if (close < 0) {
        return failure("unclosed_quote", "a quote is never closed", {
          text: input.slice(start),
          start,
          end: input.length,
        });
      }
      value += input.slice(i + 1, close);
      quoted = true;
      i = close + 1;
    }
    while (i < input.length && !SPACE.test(input[i] as string)) value += input[i++];
    if (terms.length === SEARCH_TERMS_MAX) {
      return failure("too_many_terms", `a query holds at most ${SEARCH_TERMS_MAX} words and tokens`, {
        text: input.slice(start, i),
        start,
        end: i,
      });
    }
    terms.push({ text: input.slice(start, i), start, end: i, key, value, quoted });
  }
  return terms;
}

function failure(code: SearchErrorCode, message: string, token: SearchSpan): SearchError {
  return { code, message, token: { text: token.text, start: token.start, end: token.end } };
}

function fail(code: SearchErrorCode, message: string, token: SearchSpan): SearchParse {
  return { ok: false, error: failure(code, message, token) };
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}
