import type { State } from "@/lib/contract/states";
import { isKnownState, STATE_META } from "@/lib/dashboard/state-meta";
import styles from "./StateBadge.module.css";
import { StateIcon } from "./StateIcon";

/** A state as colour, icon and words together: never colour alone. */
export function StateBadge({ state, size = "normal" }: { state: State | string; size?: "normal" | "large" }) {
  if (!isKnownState(state)) return <span className={styles.badge}>{state}</span>;
  const meta = STATE_META[state];
  return (
    <span
      className={`${styles.badge} ${size === "large" ? styles.large : ""}`}
      style={{ "--state-color": meta.color } as React.CSSProperties}
      data-state={state}
      title={meta.summary}
    >
      <StateIcon name={meta.icon} size={size === "large" ? 20 : 14} />
      {meta.label}
    </span>
  );
}

/** The chain's state, plus its shadowed state as loudly when the queues and routing act on it. */
export function StateWithShadow({
  state,
  shadowed,
}: {
  state: State | string;
  shadowed: { state: State | string } | null;
}) {
  return (
    <span className={styles.pair}>
      <StateBadge state={state} />
      {shadowed && (
        <span className={styles.shadow}>
          <span className={styles.shadowWord}>shadowed</span>
          <StateBadge state={shadowed.state} />
        </span>
      )}
    </span>
  );
}
