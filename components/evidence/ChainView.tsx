"use client";

import Link from "next/link";
import { useChain } from "../api/queries";
import { RefreshStatus } from "../ui/RefreshStatus";
import { ErrorState, LoadingState } from "../ui/StatusViews";
import { ChainEvidence } from "./ChainEvidence";
import { ChainStatusBar } from "./ChainStatusBar";
import { DestinationChecks } from "./DestinationChecks";

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
        <RefreshStatus queryKey={["chain", chainId]} />
      </div>
      {detail.isPending ? (
        <LoadingState label="Loading the chain" rows={10} />
      ) : detail.isError ? (
        <ErrorState error={detail.error} what="this chain" onRetry={() => detail.refetch()} />
      ) : (
        <>
          {detail.data.setAside ? (
            <div className="panel" role="alert" data-testid="chain-set-aside">
              <strong>Not re-classified: set aside by the deadline job</strong>
              <p className="muted">
                Its state is not current past its deadline. {detail.data.setAside.reason} (since{" "}
                {detail.data.setAside.at}). A newer record, or <code>npm run set-aside -- retry</code>, tries
                again.
              </p>
            </div>
          ) : null}
          <ChainStatusBar chain={detail.data.chain} />
          <DestinationChecks chainId={chainId} />
          <ChainEvidence detail={detail.data} />
        </>
      )}
    </div>
  );
}
