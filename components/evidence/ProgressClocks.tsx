import type { Call } from "@/lib/contract/record";
import { formatDuration } from "@/lib/dashboard/format";
import { progressTimeline } from "@/lib/dashboard/progress-timeline";
import styles from "./Evidence.module.css";

/**
 * The call against both clocks: a bar from start to the absolute deadline, the inactivity window from the last valid
 * activity, and each progress notification (ignored ones marked with why).
 */
export function ProgressClocks({ call, evaluatedAt }: { call: Call; evaluatedAt: string }) {
  const timeline = progressTimeline(call, evaluatedAt);
  const span = Math.max(timeline.deadlineMs, timeline.evaluatedOffsetMs, timeline.responseOffsetMs ?? 0, 1);
  const pct = (ms: number) => `${Math.min(100, Math.max(0, (ms / span) * 100))}%`;
  const idleEnd = timeline.lastActivityOffsetMs + timeline.inactivityMs;
  const finished = timeline.finishedOffsetMs;
  return (
    <div className={styles.clocks}>
      <h4>Clocks</h4>
      <div
        className={styles.clockBar}
        role="img"
        aria-label="Call timeline against its deadline and inactivity window"
      >
        <span className={styles.deadline} style={{ width: pct(timeline.deadlineMs) }} />
        <span
          className={styles.idle}
          style={{
            left: pct(timeline.lastActivityOffsetMs),
            width: pct(Math.min(timeline.inactivityMs, span - timeline.lastActivityOffsetMs)),
          }}
        />
        {timeline.points.map((point) => (
          <span
            key={`${point.at}-${point.progress}`}
            className={point.valid ? styles.tick : styles.tickBad}
            style={{ left: pct(point.offsetMs) }}
          />
        ))}
        {timeline.responseOffsetMs !== null && (
          <span className={styles.response} style={{ left: pct(timeline.responseOffsetMs) }} />
        )}
        <span className={styles.now} style={{ left: pct(timeline.evaluatedOffsetMs) }} />
      </div>
      <ol
        className={styles.clockScale}
        aria-label="Scale: time since the call started"
        data-testid="clock-scale"
      >
        {[0, 0.25, 0.5, 0.75, 1].map((share) => (
          <li key={share} style={{ left: pct(share * span) }}>
            {share === 0 ? "start" : `+${formatDuration(Math.round(share * span))}`}
          </li>
        ))}
      </ol>
      <ul className={styles.clockFacts}>
        {finished !== null ? (
          <li>
            Finished at +{formatDuration(finished)}:{" "}
            {finished <= timeline.deadlineMs
              ? `inside the ${formatDuration(timeline.deadlineMs)} deadline; the clocks stopped there`
              : `after the ${formatDuration(timeline.deadlineMs)} deadline`}
          </li>
        ) : (
          <>
            <li>
              Deadline: {formatDuration(timeline.deadlineMs)} from start;{" "}
              {timeline.evaluatedOffsetMs > timeline.deadlineMs ? (
                <strong>
                  exceeded by {formatDuration(timeline.evaluatedOffsetMs - timeline.deadlineMs)}
                </strong>
              ) : (
                `${formatDuration(timeline.deadlineMs - timeline.evaluatedOffsetMs)} left at evaluation`
              )}
            </li>
            <li>
              Inactivity window: {formatDuration(timeline.inactivityMs)} after the last valid activity (at +
              {formatDuration(timeline.lastActivityOffsetMs)});{" "}
              {timeline.evaluatedOffsetMs > idleEnd ? <strong>idle past it</strong> : "still inside it"}
            </li>
          </>
        )}
        {timeline.responseOffsetMs !== null && (
          <li>Response at +{formatDuration(timeline.responseOffsetMs)}</li>
        )}
        {timeline.points.map((point) => (
          <li key={`${point.at}-${point.progress}-text`} className={point.valid ? undefined : styles.ignored}>
            Progress {point.progress}
            {point.total !== null ? ` / ${point.total}` : ""} at +{formatDuration(point.offsetMs)}
            {point.ignoredBecause && ` — ignored: ${point.ignoredBecause}`}
          </li>
        ))}
        {timeline.points.length === 0 && <li className="muted">No progress notifications.</li>}
      </ul>
    </div>
  );
}
