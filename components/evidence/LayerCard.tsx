import type { Call } from "@/lib/contract/record";
import type { LayerStatus, LayerView } from "@/lib/dashboard/evidence-layers";
import { ReasonList } from "../state/ReasonList";
import styles from "./Evidence.module.css";
import { FactList } from "./FactList";
import { ProgressClocks } from "./ProgressClocks";

const LAYER_TITLE: Record<LayerView["layer"], string> = {
  session: "Session",
  catalog: "Catalog",
  request: "Request",
  effect: "Effect",
  outcome: "Outcome",
};

export const STATUS_TEXT: Record<LayerStatus, { label: string; icon: string }> = {
  ok: { label: "OK", icon: "✓" },
  failed: { label: "Failed", icon: "✕" },
  missing: { label: "Missing", icon: "?" },
  warning: { label: "Evidence ignored", icon: "!" },
  pending: { label: "In progress", icon: "…" },
  not_reached: { label: "Not evaluated", icon: "–" },
  not_observed: { label: "Not observed", icon: "◌" },
};

/** One layer of the evidence chain: its verdict, why, what it holds, and what it lacks. */
export function LayerCard({
  view,
  call,
  evaluatedAt,
}: {
  view: LayerView;
  call?: Call;
  evaluatedAt: string;
}) {
  const status = STATUS_TEXT[view.status];
  return (
    <li
      className={`${styles.layer} ${styles[`status-${view.status}`]} ${view.deciding ? styles.deciding : ""} ${view.shadowed ? styles.shadowedLayer : ""}`}
      data-layer={view.layer}
      data-status={view.status}
      aria-current={view.deciding ? "step" : undefined}
    >
      <div className={styles.layerHead}>
        <h3>{LAYER_TITLE[view.layer]}</h3>
        <span className={styles.status}>
          <span aria-hidden="true">{status.icon}</span> {status.label}
        </span>
      </div>
      {view.deciding && <p className={styles.flag}>Deciding layer: this layer's rule set the state.</p>}
      {view.shadowed && (
        <p className={styles.flagShadow}>Shadowed problem: the call's own state is decided here.</p>
      )}
      {view.unseen && (
        <div className={styles.unseen} role="note" aria-label={`${LAYER_TITLE[view.layer]} not observed`}>
          <p>
            <strong>Not observed — neither failed nor passed.</strong> {view.unseen.what}
          </p>
          <p>{view.unseen.toSee}</p>
        </div>
      )}
      {view.gaps.length > 0 && (
        <ul className={styles.gaps} aria-label={`Missing in ${LAYER_TITLE[view.layer]}`}>
          {view.gaps.map((gap) => (
            <li key={gap}>{gap}</li>
          ))}
        </ul>
      )}
      {view.reasons.length > 0 && (
        <ReasonList reasons={view.reasons} decidingFirst={view.deciding || view.shadowed} />
      )}
      <FactList facts={view.facts} />
      {view.layer === "request" && call && <ProgressClocks call={call} evaluatedAt={evaluatedAt} />}
    </li>
  );
}
