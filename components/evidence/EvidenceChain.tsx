import type { HealthRecord } from "@/lib/contract/record";
import type { ChainSummary } from "@/lib/dashboard/api-types";
import type { LayerView } from "@/lib/dashboard/evidence-layers";
import styles from "./Evidence.module.css";
import { LayerCard } from "./LayerCard";

/** The five layers, session → outcome, in evaluation order: the eye follows the evidence to where it stopped. */
export function EvidenceChain({
  layers,
  record,
  chain,
}: {
  layers: LayerView[];
  record: HealthRecord;
  chain: ChainSummary;
}) {
  return (
    <section aria-labelledby="evidence-title">
      <h2 id="evidence-title">Evidence chain</h2>
      <ol className={styles.chain}>
        {layers.map((view) => (
          <LayerCard key={view.layer} view={view} call={record.call} evaluatedAt={chain.evaluatedAt} />
        ))}
      </ol>
    </section>
  );
}
