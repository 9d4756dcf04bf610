import type { LayerView } from "@/lib/dashboard/evidence-layers";
import styles from "./Evidence.module.css";

/** Everything the chain lacks, in one list, said as plainly as what it has. */
export function MissingSummary({ layers }: { layers: LayerView[] }) {
  const gaps = layers.flatMap((view) => view.gaps.map((gap) => ({ layer: view.layer, gap })));
  return (
    <section
      className={`${styles.missing} ${gaps.length === 0 ? styles.nothingMissing : ""}`}
      aria-labelledby="missing-title"
    >
      <h2 id="missing-title">What is missing</h2>
      {gaps.length === 0 ? (
        <p>Nothing: every layer has its evidence, including an outcome receipt.</p>
      ) : (
        <ul>
          {gaps.map(({ layer, gap }) => (
            <li key={`${layer}:${gap}`}>
              <span className={styles.missingLayer}>{layer}</span> {gap}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
