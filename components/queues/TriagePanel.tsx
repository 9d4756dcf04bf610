"use client";

import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import type { QueueEntry, QueueName, ReconcileResult } from "@/lib/dashboard/api-types";
import { untouchedItem } from "@/lib/triage/view";
import { reasonText } from "@/lib/dashboard/reason-text";
import { STATE_META } from "@/lib/dashboard/state-meta";
import { reconcileResultKey } from "../api/mutations";
import { useChain, useChainTriage } from "../api/queries";
import { RoleFieldset } from "../auth/RoleGate";
import { chainHref } from "../chains/ChainTable";
import { StateWithShadow } from "../state/StateBadge";
import { EmptyState, ErrorState, LoadingState } from "../ui/StatusViews";
import { AuditTrail } from "./AuditTrail";
import styles from "./Queues.module.css";
import { ReconcileForm, ReconcileOutcome } from "./ReconcileForm";
import { TriageActions } from "./TriageActions";

/** The selected item's triage: its state in words, the actions, reconcile (effect unknown), and the audit trail. */
export function TriagePanel(props: {
  queue: QueueName;
  chainId: string | null;
  entry?: QueueEntry;
  onClose: () => void;
}) {
  if (!props.chainId) {
    return (
      <aside className={`panel ${styles.panel}`} aria-label="Triage">
        <EmptyState title="Select an item to triage">
          <p>Click a row, or move with ↑/↓ and press Enter.</p>
        </EmptyState>
      </aside>
    );
  }
  return <SelectedItem key={props.chainId} {...props} chainId={props.chainId} />;
}

function SelectedItem({
  queue,
  chainId,
  entry,
  onClose,
}: {
  queue: QueueName;
  chainId: string;
  entry?: QueueEntry;
  onClose: () => void;
}) {
  const chain = useChain(chainId);
  const triage = useChainTriage(chainId);
  // Kept in the query cache by useReconcile, not in component state: the refetch after a reconcile may remount this
  // panel and always unmounts the form, and the operator must still see what their evidence did to the chain.
  const result = useQuery<ReconcileResult | null>({
    queryKey: reconcileResultKey(chainId),
    queryFn: () => null,
    enabled: false,
    staleTime: Number.POSITIVE_INFINITY,
  }).data;
  const panel = useRef<HTMLElement>(null);
  // On a narrow screen the panel sits above the list: bring it into view when an item is chosen.
  useEffect(() => {
    if (window.matchMedia("(max-width: 1000px)").matches) panel.current?.scrollIntoView({ block: "start" });
  }, []);
  // Esc closes the panel, as a side sheet does; not while typing in a field or with a dialog open over it.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || event.defaultPrevented) return;
      const target = event.target as HTMLElement | null;
      if (target?.closest("input, textarea, select, [contenteditable], dialog[open], [role=dialog]")) return;
      onClose();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [onClose]);
  const summary = chain.data?.chain ?? entry?.chain;
  if (!summary) {
    return (
      <aside className={`panel ${styles.panel}`} aria-label="Triage">
        {chain.isError ? (
          <ErrorState error={chain.error} what="this chain" />
        ) : (
          <LoadingState label="Loading the item" />
        )}
      </aside>
    );
  }
  const item = triage.data?.items.find((i) => i.queue === queue) ?? entry?.triage ?? untouchedItem(queue);
  const inQueue = summary.state === queue || summary.shadowed?.state === queue;
  const reason = summary.shadowed?.state === queue ? summary.shadowed.reason : summary.reasons[0];
  return (
    <aside ref={panel} className={`panel ${styles.panel}`} aria-label="Triage" data-testid="triage-panel">
      <div className={styles.panelHead}>
        <h2 className="mono">{chainId}</h2>
        <button type="button" className="button small" onClick={onClose} aria-label="Close the triage panel">
          ×
        </button>
      </div>
      <StateWithShadow state={summary.state} shadowed={summary.shadowed} />
      {reason && (
        <p>
          <strong>{reasonText(reason).title}.</strong> {reasonText(reason).what}
        </p>
      )}
      <p>
        <Link href={chainHref(chainId)}>See the evidence chain →</Link>
      </p>
      {!inQueue && (
        <p className={styles.moved} role="status">
          This chain is no longer in the {STATE_META[queue].label.toLowerCase()} queue: it is now{" "}
          <strong>{STATE_META[summary.state].label}</strong>.
        </p>
      )}
      {result && <ReconcileOutcome result={result} />}
      <RoleFieldset needs="responder" doing="triage and reconcile items">
        <TriageActions key={chainId} queue={queue} chainId={chainId} item={item} />
        {queue === "effect_unknown" && inQueue && <ReconcileForm chainId={chainId} />}
      </RoleFieldset>
      <AuditTrail events={triage.data?.events} loading={triage.isPending} />
    </aside>
  );
}
