"use client";

import Link from "next/link";
import type { SearchMatch, SearchMatchKind, SearchResults } from "@/lib/dashboard/api-types";
import { useSearch } from "../api/queries";
import { ChainTable } from "../chains/ChainTable";
import { EmptyState, ErrorState, LoadingState } from "../ui/StatusViews";
import { useUrlState } from "../ui/use-url-state";
import styles from "./SearchView.module.css";

const KIND_TITLE: Record<SearchMatchKind, string> = {
  chain_id: "Chain id",
  request_id: "JSON-RPC request id",
  operation_key: "Operation key",
};

/** /search?q=…: the ids a query matches (exact, then by prefix), narrowed by its tokens, grouped by what matched. */
export function SearchView() {
  const { params } = useUrlState();
  const q = params.get("q")?.trim() ?? "";
  const search = useSearch(q);
  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <h1>Search</h1>
          <p>
            Chain ids, session ids, JSON-RPC request ids and operation keys that are, or start with,{" "}
            <strong className={`mono ${styles.id}`}>{q || "…"}</strong>.
          </p>
        </div>
      </div>
      {!q ? (
        <div className="panel">
          <EmptyState title="Type an id or a token in the search box">
            <SearchSyntax />
          </EmptyState>
        </div>
      ) : search.isPending ? (
        <LoadingState label="Searching" rows={4} />
      ) : search.isError ? (
        <ErrorState error={search.error} what="the search" />
      ) : (
        <Results results={search.data} query={q} />
      )}
    </div>
  );
}

function Results({ results, query }: { results: SearchResults; query: string }) {
  if (results.chainsPath && results.target === results.chainsPath) {
    return (
      <div className="panel">
        <EmptyState title="These tokens filter the chain list">
          <p>
            <Link href={results.chainsPath}>Open the chain list with these filters</Link>
          </p>
        </EmptyState>
      </div>
    );
  }
  if (results.sessions.length === 0 && results.chains.length === 0) {
    return (
      <div className="panel">
        <EmptyState title="Nothing matches">
          <p>
            No id is or starts with these words
            {results.chainsPath ? " among the chains the tokens allow" : ""}.
          </p>
          {results.chainsPath && (
            <p>
              <Link href={results.chainsPath}>Every chain the tokens allow</Link>
            </p>
          )}
          <SearchSyntax />
        </EmptyState>
      </div>
    );
  }
  const matchText = (match: SearchMatch) => (match === "prefix" ? " (starts with the query)" : "");
  const kinds = (Object.keys(KIND_TITLE) as SearchMatchKind[]).filter((kind) =>
    results.chains.some((chain) => chain.matchedBy === kind),
  );
  return (
    <>
      <p data-testid="search-count">
        {results.sessions.length + results.chains.length}
        {results.more ? "+" : ""} match{results.sessions.length + results.chains.length === 1 ? "" : "es"}
      </p>
      {results.sessions.map((session) => (
        <section key={session.sessionId} className="panel" aria-label="Session">
          <h2>Session</h2>
          <p>
            <Link href={`/sessions/${encodeURIComponent(session.sessionId)}`} className={`mono ${styles.id}`}>
              {session.sessionId}
            </Link>{" "}
            — {session.chains}
            {session.moreChains ? "+" : ""} chain{session.chains === 1 ? "" : "s"}
            {matchText(session.match)}
          </p>
        </section>
      ))}
      {kinds.map((kind) => (
        <section key={kind} aria-labelledby={`search-${kind}`}>
          <h2 id={`search-${kind}`}>{KIND_TITLE[kind]}</h2>
          {kind === "operation_key" && (
            <p>
              <Link href={`/operations/${encodeURIComponent(query)}`}>
                The operation: its status, attempts and guard decisions
              </Link>
            </p>
          )}
          <ChainTable
            chains={results.chains.filter((chain) => chain.matchedBy === kind)}
            caption={`Chains matched by ${KIND_TITLE[kind].toLowerCase()}`}
          />
        </section>
      ))}
      {results.chainsPath && (
        <p>
          <Link href={results.chainsPath}>The chain list with these filters</Link>
        </p>
      )}
      {results.more && <p className="muted">Only the first matches are shown: type more of the id.</p>}
    </>
  );
}

/** The box's syntax, where a user lands without a query or without matches. */
function SearchSyntax() {
  return (
    <div className={styles.syntax}>
      <p>
        Press <kbd>/</kbd> anywhere for a fresh query. Words match ids exactly, then by prefix. Tokens filter,
        and suggest stored values as you type (<kbd>↑</kbd> <kbd>↓</kbd>, <kbd>Enter</kbd> picks,{" "}
        <kbd>Esc</kbd> closes):
      </p>
      <ul>
        <li>
          <code>server:files</code>, <code>tool:read_file</code>, <code>client:claude</code>: exactly this
          name; quote one with spaces (<code>server:&quot;files a&quot;</code>)
        </li>
        <li>
          <code>state:false_success</code>: this state (current or shadowed); repeat it or use commas for any
          of several
        </li>
        <li>
          <code>label:team:reports</code>: this label; several labels must all match
        </li>
      </ul>
      <p>
        Tokens alone open the chain list with those filters. Quote an id that holds a colon and starts like a
        token.
      </p>
    </div>
  );
}
