"use client";

import Link from "next/link";
import { type QueueName, TRIAGE_STATUSES, type TriageStatus } from "@/lib/dashboard/api-types";
import { STATE_META } from "@/lib/dashboard/state-meta";
import { useQueue } from "../api/queries";
import { RefreshStatus } from "../ui/RefreshStatus";
import { StateIcon } from "../state/StateIcon";
import { Pager } from "../ui/Pager";
import { EmptyState, ErrorState, LoadingState } from "../ui/StatusViews";
import { hydratedMark, useHydrated } from "../ui/use-hydrated";
import { useUrlState } from "../ui/use-url-state";
import styles from "./Queues.module.css";
import { QueueTable } from "./QueueTable";
import { TriagePanel } from "./TriagePanel";
import { AssignedToMeToggle } from "../team/AssignedToMeToggle";

const INTRO: Record<QueueName, string> = {
  false_success:
    "Calls that reported success while the destination or the verifier says the deliverable is not there. Each is an outcome incident.",
  effect_unknown:
    "Writes with no definitive answer: they may or may not have happened. Check the destination and reconcile before anyone retries. Chains whose effect is unknown behind a session or catalog problem (shadowed) are here too.",
};

const STATUS_LABEL = {
  open: "Open",
  acknowledged: "Acknowledged",
  resolved: "Resolved",
  all: "All",
} as const;

/** A triage queue: the list on one side, the selected chain's triage (and reconcile) on the other. */
export function QueueView({ queue }: { queue: QueueName }) {
  const { params, update } = useUrlState();
  const status = (params.get("status") ?? "open") as keyof typeof STATUS_LABEL;
  const selected = params.get("chain");
  const mine = params.get("assignee") === "me";
  const page = useQueue(queue, {
    status,
    cursor: params.get("cursor") ?? undefined,
    ...(mine ? { assignee: "me" } : {}),
  });
  const meta = STATE_META[queue];
  const base = queue === "false_success" ? "/queues/false-success" : "/queues/effect-unknown";
  const hydrated = useHydrated();

  return (
    <div className="stack" {...hydratedMark(hydrated)}>
      <div className="page-head">
        <div>
          <h1 className={styles.title} style={{ color: meta.color }}>
            <StateIcon name={meta.icon} size={22} /> {meta.label} queue
          </h1>
          <p>{INTRO[queue]}</p>
        </div>
        <RefreshStatus queryKey={["queue", queue]} />
      </div>
      <nav aria-label="Triage status" className={styles.tabs}>
        {[...TRIAGE_STATUSES, "all" as const].map((tab) => (
          <Link
            key={tab}
            href={`${base}?status=${tab}${mine ? "&assignee=me" : ""}`}
            aria-current={tab === status ? "page" : undefined}
          >
            {STATUS_LABEL[tab]}
            {page.data && <span className={styles.count}>{countOf(page.data.counts, tab)}</span>}
          </Link>
        ))}
      </nav>
      <AssignedToMeToggle on={mine} onChange={(on) => update({ assignee: on ? "me" : null })} />
      <div className={styles.split} data-selected={Boolean(selected)}>
        <div>
          {page.isPending ? (
            <LoadingState label="Loading the queue" rows={6} />
          ) : page.isError ? (
            <ErrorState error={page.error} what="the queue" onRetry={() => page.refetch()} />
          ) : page.data.entries.length === 0 ? (
            <div className="panel">
              <EmptyState
                title={`No ${STATUS_LABEL[status].toLowerCase()} items${mine ? " assigned to you" : ""}`}
                icon="✓"
              >
                <p>
                  {status === "open"
                    ? `Nothing in the ${meta.label.toLowerCase()} queue waits for a person.`
                    : "Try another tab."}
                </p>
              </EmptyState>
            </div>
          ) : (
            <>
              <QueueTable
                entries={page.data.entries}
                selected={selected}
                onSelect={(chain) => update({ chain }, { keepCursor: true })}
              />
              <Pager
                hasPrevious={Boolean(params.get("cursor"))}
                nextCursor={page.data.nextCursor}
                shown={page.data.entries.length}
                onFirst={() => update({ chain: null })}
                onNext={(cursor) => update({ cursor }, { keepCursor: true })}
              />
            </>
          )}
        </div>
        <TriagePanel
          queue={queue}
          chainId={selected}
          entry={page.data?.entries.find((entry) => entry.chain.chainId === selected)}
          onClose={() => update({ chain: null }, { keepCursor: true })}
        />
      </div>
    </div>
  );
}

/** A tab's count; All is every status together (reconciled chains included, under Resolved). */
function countOf(counts: Record<TriageStatus, number>, tab: TriageStatus | "all"): number {
  return tab === "all" ? counts.open + counts.acknowledged + counts.resolved : counts[tab];
}
