"use client";

import { useChain, useSession } from "../api/queries";
import { ChainTable } from "../chains/ChainTable";
import { ChainEvidence } from "../evidence/ChainEvidence";
import { StateBadge } from "../state/StateBadge";
import { RefreshStatus } from "../ui/RefreshStatus";
import { ErrorState, LoadingState } from "../ui/StatusViews";
import { useUrlState } from "../ui/use-url-state";
import { SessionTimeline } from "./SessionTimeline";

/**
 * /sessions/[id]: every chain of one MCP session, most dangerous first, and the evidence chain of the one selected
 * (the worst by default) — where the session's evidence stopped.
 */
export function SessionView({ sessionId }: { sessionId: string }) {
  const session = useSession(sessionId);
  const { params, update } = useUrlState();
  const chains = session.data?.chains ?? [];
  const selected = params.get("chain") ?? chains[0]?.chainId;
  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <p className="muted">Session</p>
          <h1 className="mono" style={{ wordBreak: "break-all" }}>
            {sessionId}
          </h1>
        </div>
        <RefreshStatus queryKey={["session", sessionId]} />
        {session.data && (
          <p>
            Worst: <StateBadge state={session.data.worstState ?? "unverified"} />
            {session.data.worstIncludingShadowed !== session.data.worstState &&
              session.data.worstIncludingShadowed && (
                <>
                  {" "}
                  · including shadowed: <StateBadge state={session.data.worstIncludingShadowed} />
                </>
              )}
          </p>
        )}
      </div>
      {session.isPending ? (
        <LoadingState label="Loading the session" rows={6} />
      ) : session.isError ? (
        <ErrorState error={session.error} what="this session" onRetry={() => session.refetch()} />
      ) : (
        <>
          <section aria-labelledby="session-chains">
            <h2 id="session-chains">
              {chains.length} chain{chains.length === 1 ? "" : "s"} in this session, most dangerous first
            </h2>
            <ChainTable chains={chains} caption="Chains of this session" />
          </section>
          <SessionTimeline calls={session.data.calls} />
          {selected && (
            <section aria-labelledby="session-evidence" className="stack">
              <div className="page-head" style={{ marginBottom: 0 }}>
                <h2 id="session-evidence" style={{ margin: 0 }}>
                  Evidence of one chain
                </h2>
                <label>
                  Chain{" "}
                  <select value={selected} onChange={(e) => update({ chain: e.target.value })}>
                    {chains.map((chain) => (
                      <option key={chain.chainId} value={chain.chainId}>
                        {chain.chainId} ({chain.state})
                      </option>
                    ))}
                  </select>
                </label>
              </div>
              <SelectedChain chainId={selected} />
            </section>
          )}
        </>
      )}
    </div>
  );
}

function SelectedChain({ chainId }: { chainId: string }) {
  const detail = useChain(chainId);
  if (detail.isPending) return <LoadingState label="Loading the chain" rows={8} />;
  if (detail.isError)
    return <ErrorState error={detail.error} what="this chain" onRetry={() => detail.refetch()} />;
  return <ChainEvidence detail={detail.data} />;
}
