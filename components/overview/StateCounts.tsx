"use client";

import Link from "next/link";
import type { TimeWindow } from "@/lib/dashboard/api-types";
import { formatCount } from "@/lib/dashboard/format";
import { STATE_META, STATES_BY_SEVERITY } from "@/lib/dashboard/state-meta";
import { WINDOW_SPEC } from "@/lib/dashboard/time-windows";
import { type CountChange, changeText } from "@/lib/dashboard/window-comparison";
import { useStats } from "../api/queries";
import { StateIcon } from "../state/StateIcon";
import { ErrorState, LoadingState } from "../ui/StatusViews";
import styles from "./Overview.module.css";

/**
 * Ten tiles, most dangerous first; each links to the chain list filtered to that state and window. The link keeps
 * the window relative (`since=24h`), so a shared or bookmarked link still means "the last 24 hours" tomorrow.
 */
export function StateCounts({ since, window }: { since: string; window: TimeWindow }) {
  const stats = useStats(since);
  if (stats.isPending) return <LoadingState label="Loading counts" rows={2} />;
  if (stats.isError)
    return <ErrorState error={stats.error} what="the counts" onRetry={() => stats.refetch()} />;
  const { states, shadowed, total, previous } = stats.data;
  const windowLabel = WINDOW_SPEC[window].short;
  return (
    <section aria-labelledby="counts-title">
      <h2 id="counts-title" className="visually-hidden">
        Chains per state
      </h2>
      <p className={styles.total}>
        <strong data-testid="total-count">{formatCount(total)}</strong> chains in this window
        {previous && (
          <>
            {" "}
            <Change change={previous.change.total} windowLabel={windowLabel} testId="total-change" />
          </>
        )}
      </p>
      <ul className={styles.tiles}>
        {STATES_BY_SEVERITY.map((state) => {
          const meta = STATE_META[state];
          const count = states[state];
          return (
            <li key={state}>
              <Link
                href={`/chains?state=${state}&since=${window}`}
                className={`${styles.tile} ${count > 0 && meta.tone === "bad" ? styles.alarm : ""}`}
                style={{ "--state-color": meta.color } as React.CSSProperties}
                data-state={state}
                aria-label={`${meta.label}: ${count} chains${shadowed[state] ? `, plus ${shadowed[state]} shadowed` : ""}${previous ? `, ${changeText(previous.change.states[state].delta, windowLabel)}` : ""}`}
              >
                <span className={styles.tileHead}>
                  <StateIcon name={meta.icon} />
                  {meta.label}
                </span>
                <span className={styles.tileCount} data-testid={`count-${state}`}>
                  {formatCount(count)}
                </span>
                {previous && (
                  <Change
                    change={previous.change.states[state]}
                    windowLabel={windowLabel}
                    testId={`change-${state}`}
                  />
                )}
                {shadowed[state] > 0 && (
                  <span className={styles.tileShadow}>+{shadowed[state]} shadowed</span>
                )}
              </Link>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/** How a count moved against the previous window; coloured by what the move means for the person on call. */
function Change({
  change,
  windowLabel,
  testId,
}: {
  change: CountChange;
  windowLabel: string;
  testId: string;
}) {
  return (
    <span
      className={`${styles.change} ${styles[change.meaning] ?? ""}`}
      data-testid={testId}
      data-meaning={change.meaning}
      title={`${formatCount(change.previous)} in the previous ${windowLabel}`}
    >
      {changeText(change.delta, windowLabel)}
    </span>
  );
}
