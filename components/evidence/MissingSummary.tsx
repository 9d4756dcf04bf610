import type { LayerView } from "@/lib/dashboard/evidence-layers";
import styles from "./Evidence.module.css";

/** Everything the chain lacks, in one list, said as plainly as what it has. */
export function MissingSummary({ layers, healthy = false }: { layers: LayerView[]; healthy?: boolean }) {
  const gaps = layers.flatMap((view) => view.gaps.map((gap) => ({ layer: view.layer, gap })));
  // Contract v1.2: an unseen layer is neither missing evidence nor complete: said apart, never "nothing missing".
  const unseen = layers.filter((view) => view.unseen !== undefined);
  const complete = gaps.length === 0 && unseen.length === 0;
  // A healthy chain's receipt settles it: what else was not recorded is detail, not a warning.
  const settled = healthy && !complete;
  const tone = complete || settled ? styles.nothingMissing : gaps.length === 0 ? styles.onlyUnseen : "";
  return (
    <section className={`${styles.missing} ${tone}`} aria-labelledby="missing-title">
      <h2 id="missing-title">What is missing</h2>
      {complete ? <p>Nothing: every layer has its evidence, including an outcome receipt.</p> : null}
      {settled ? <p>Nothing the verdict needs: the outcome receipt settles it. Also not recorded:</p> : null}
      {gaps.length > 0 ? (
        <ul>
          {gaps.map(({ layer, gap }) => (
            <li key={`${layer}:${gap}`}>
              <span className={styles.missingLayer}>{layer}</span> {gap}
            </li>
          ))}
        </ul>
      ) : null}
      {unseen.length > 0 ? (
        <ul className={styles.unseenList} aria-label="Not observed">
          {unseen.map((view) => (
            <li key={view.layer}>
              <span className={styles.missingLayer}>{view.layer}</span> Not observed by the reporter: a
              coverage gap, not a failure. {view.unseen?.toSee}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
