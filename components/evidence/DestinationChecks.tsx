"use client";

import type { CheckRunView } from "@/lib/dashboard/api-types";
import { useRoleAllows } from "../auth/CurrentUser";
import { roleReason } from "../auth/RoleGate";
import { useCheckDestination } from "../api/mutations";
import { useChainChecks } from "../api/queries";
import { Time } from "../ui/Time";

const EFFECT_TEXT: Record<CheckRunView["effect"], string> = {
  committed: "the write is there",
  absent: "the write is not there",
  unknown: "could not tell",
};

function RunLine({ run }: { run: CheckRunView }) {
  return (
    <li data-testid="check-run" data-effect={run.effect}>
      <strong>{run.check}</strong>: {EFFECT_TEXT[run.effect]}
      {run.outcome ? ` · outcome ${run.outcome}` : ""} · <span className="mono">{run.receipt}</span>
      {run.reconciled ? " · reconciled the chain" : ""} ·{" "}
      {run.trigger === "on_demand" ? "on demand" : "automatic"} <Time iso={run.at} />
    </li>
  );
}

/**
 * What Receipt read at the destination for this chain (its destination checks), and "Check destination now": the
 * matching checks run at once, and a result that settles an unknown effect reconciles the chain.
 */
export function DestinationChecks({ chainId }: { chainId: string }) {
  const runs = useChainChecks(chainId);
  const check = useCheckDestination(chainId);
  const mayRespond = useRoleAllows("responder");
  const list = runs.data?.runs ?? [];
  return (
    <section className="panel" aria-label="Destination checks" data-testid="destination-checks">
      <div className="page-head">
        <h2>Destination checks</h2>
        <button
          type="button"
          disabled={!mayRespond || check.isPending}
          title={mayRespond ? undefined : roleReason("responder", "check the destination")}
          onClick={() => check.mutate()}
        >
          {check.isPending ? "Checking…" : "Check destination now"}
        </button>
      </div>
      {check.isError ? (
        <p role="alert" className="muted">
          {check.error.message}
        </p>
      ) : null}
      {runs.isPending ? (
        <p className="muted">Loading…</p>
      ) : list.length === 0 ? (
        <p className="muted">No check has read this chain's destination.</p>
      ) : (
        <ul>
          {list.map((run) => (
            <RunLine key={`${run.check}|${run.at}`} run={run} />
          ))}
        </ul>
      )}
    </section>
  );
}
