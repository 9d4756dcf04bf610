"use client";

import Link from "next/link";
import type { SearchMatchKind, SearchResults } from "@/lib/dashboard/api-types";
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

/** /search?q=…: every exact match of one id, grouped by what it matched. */
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
            Exact matches of <strong className={`mono ${styles.id}`}>{q || "…"}</strong> among chain ids,
            session ids, JSON-RPC request ids and operation keys.
          </p>
        </div>
      </div>
      {!q ? (
        <div className="panel">
          <EmptyState title="Type an id in the search box">
            <p>
              Press <kbd>/</kbd> anywhere to focus it.
            </p>
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
  if (results.sessions.length === 0 && results.chains.length === 0) {
    return (
      <div className="panel">
        <EmptyState title="Nothing has this id">
          <p>
            Search matches whole ids only; check for a missing prefix such as <code>chain:</code>.
          </p>
        </EmptyState>
      </div>
    );
  }
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
      {results.more && <p className="muted">Only the newest 50 chains are shown: narrow the id.</p>}
    </>
  );
}
