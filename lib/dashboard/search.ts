/** The longest query the search box and API take (the parser's own bound, SEARCH_INPUT_MAX). */
export const SEARCH_QUERY_MAX = 512;

/** The dashboard page a search names when it names exactly one thing (a chain or a session), otherwise null. */
export function searchTarget<S extends { sessionId: string }, C extends { chainId: string }>(results: {
  sessions: S[];
  chains: C[];
  more: boolean;
}): string | null {
  const [session] = results.sessions;
  const [chain] = results.chains;
  if (results.sessions.length + results.chains.length !== 1 || results.more) return null;
  if (session) return `/sessions/${encodeURIComponent(session.sessionId)}`;
  return chain ? `/chains/${encodeURIComponent(chain.chainId)}` : null;
}
