import type { SearchResults } from "@/lib/dashboard/api-types";
import { searchTarget } from "@/lib/dashboard/search";
import { type KeyLikeWord, parseSearchQuery, type SearchError, unknownKeyError } from "@/lib/search/query";
import { chainsListPath } from "@/lib/search/suggest";
import { mergeMatches, searchWord } from "../db/chain-search";
import { ApiError } from "../http/api-error";

const NO_FILTERS = { states: [], labels: [] };

/** A query the parser refuses: 422 with the parser's code, at `$.query.q`, naming the token and where it is. */
function refused(error: SearchError): ApiError {
  return new ApiError(422, "invalid_search", error.message, [
    { path: "$.query.q", code: error.code, message: error.message, token: error.token },
  ]);
}

/**
 * The header box's query: free words are ids (exact, then prefix), tokens narrow them. A query of tokens only names
 * the chain list with those filters. A word shaped like an unknown token (`env:prod`) is an id when some id starts
 * with it (ids often hold a colon), and otherwise a 422 naming it.
 */
export async function searchChains(q: string): Promise<SearchResults> {
  const parsed = parseSearchQuery(q);
  if (!parsed.ok) throw refused(parsed.error);
  const { query } = parsed;
  const hasTokens =
    query.server !== undefined ||
    query.tool !== undefined ||
    query.client !== undefined ||
    query.states.length > 0 ||
    query.labels.length > 0;
  const chainsPath = hasTokens ? chainsListPath(query) : null;
  const words: (KeyLikeWord | (typeof query.words)[number])[] = [...query.words, ...query.keyLike].sort(
    (a, b) => a.start - b.start,
  );
  if (words.length === 0) {
    return { query: q, sessions: [], chains: [], more: false, target: chainsPath, chainsPath };
  }
  const found = await Promise.all(words.map((word) => searchWord(word.text, query)));
  for (const [index, word] of words.entries()) {
    const hits = found[index];
    if (!("key" in word) || !hits || hits.chains.length > 0 || hits.sessions.length > 0) continue;
    // No match under the tokens: an id starting with the word makes it a word all the same.
    const unfiltered = hasTokens ? await searchWord(word.text, NO_FILTERS) : hits;
    if (unfiltered.chains.length === 0 && unfiltered.sessions.length === 0)
      throw refused(unknownKeyError(word));
  }
  const merged = mergeMatches(found);
  const onlyExact = [...merged.chains, ...merged.sessions].every((match) => match.match === "exact");
  const target = onlyExact ? searchTarget(merged) : null;
  return { query: q, ...merged, target, chainsPath };
}
