"use client";

import Link from "next/link";
import { useChain } from "../api/queries";
import { ErrorState, LoadingState } from "../ui/StatusViews";
import { ChainEvidence } from "./ChainEvidence";

/** /chains/[id]: one chain's verdict, its five layers, what is missing, and its timeline. */
export function ChainView({ chainId }: { chainId: string }) {
  const detail = useChain(chainId);
  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <p className="muted">
            <Link href="/chains">Chains</Link> /
          </p>
          <h1 className="mono" style={{ wordBreak: "break-all" }}>
            {chainId}
          </h1>
        </div>
      </div>
      {detail.isPending ? (
        <LoadingState label="Loading the chain" rows={10} />
      ) : detail.isError ? (
        <ErrorState error={detail.error} what="this chain" onRetry={() => detail.refetch()} />
      ) : (
        <ChainEvidence detail={detail.data} />
      )}
    </div>
  );
}
