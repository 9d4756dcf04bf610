"use client";

import Link from "next/link";
import { useAttention } from "../api/queries";
import { ChainTable } from "../chains/ChainTable";
import { EmptyState, ErrorState, LoadingState } from "../ui/StatusViews";

/** The newest chains that need a person: neither healthy nor in flight. */
export function AttentionList({ since }: { since: string }) {
  const attention = useAttention(since);
  return (
    <section aria-labelledby="attention-title">
      <div className="page-head" style={{ marginBottom: "0.5rem" }}>
        <h2 id="attention-title" style={{ margin: 0 }}>
          Newest chains that are not green
        </h2>
        <Link href="/chains">All chains →</Link>
      </div>
      {attention.isPending ? (
        <LoadingState label="Loading chains" rows={5} />
      ) : attention.isError ? (
        <ErrorState error={attention.error} what="chains" onRetry={() => attention.refetch()} />
      ) : attention.data.chains.length === 0 ? (
        <div className="panel">
          <EmptyState title="Nothing needs a person in this window" icon="✓">
            <p>Every chain observed is healthy or still in flight.</p>
          </EmptyState>
        </div>
      ) : (
        <ChainTable chains={attention.data.chains} caption="Newest chains that are not green" />
      )}
    </section>
  );
}
