"use client";

import type { ChainDetail } from "@/lib/dashboard/api-types";
import { effectiveEffect, evidenceLayers, withRecordedOutcome } from "@/lib/dashboard/evidence-layers";
import { useChainTriage } from "../api/queries";
import { ChainHeadline } from "./ChainHeadline";
import { ChainTimeline } from "./ChainTimeline";
import { EvidenceChain } from "./EvidenceChain";
import { MissingSummary } from "./MissingSummary";
import styles from "./Evidence.module.css";

/** Everything known about one chain, shared by the chain page and the session page. */
export function ChainEvidence({ detail }: { detail: ChainDetail }) {
  const triage = useChainTriage(detail.chain.chainId);
  const current = detail.records.find((record) => record.current) ?? detail.records.at(-1);
  if (!current) return null;
  const recorded = triage.data?.operatorEffects ?? [];
  // The layers show the evidence in force: a destination check's effect and outcome where newer than the record's.
  const body = withRecordedOutcome(current.body, recorded);
  const layers = evidenceLayers(body, detail.chain, effectiveEffect(body, recorded));
  return (
    <div className="stack">
      <ChainHeadline chain={detail.chain} operationKey={current.body.call?.operationKey ?? undefined} />
      <MissingSummary layers={layers} healthy={detail.chain.state === "healthy"} />
      <EvidenceChain layers={layers} record={body} chain={detail.chain} />
      <ChainTimeline detail={detail} triage={triage.data} />
      <details className={`panel ${styles.raw}`}>
        <summary>
          Current record as stored (redacted JSON, {detail.chain.recordCount} record
          {detail.chain.recordCount === 1 ? "" : "s"} in this chain)
        </summary>
        <pre>{JSON.stringify(current.body, null, 2)}</pre>
      </details>
    </div>
  );
}
