"use client";

import Link from "next/link";
import { useState } from "react";
import type { SessionCallTimes } from "@/lib/dashboard/session-timeline";
import { layoutSessionTimeline } from "@/lib/dashboard/session-timeline";
import { formatAbsolute, formatDuration } from "@/lib/dashboard/format";
import { STATE_META } from "@/lib/dashboard/state-meta";
import { chainHref } from "../chains/ChainTable";
import styles from "./Session.module.css";

const MARK_WORDS = { handshake: "Handshake", catalog: "Catalog read" } as const;

/**
 * The session's calls on one time axis from its start (Langfuse's nested timeline): a bar per call from its start to
 * its response (or its deadline, or now while it runs), coloured by the chain's state and linked to it, under the
 * handshake and catalog reads. The layout is lib/dashboard/session-timeline.ts.
 */
export function SessionTimeline({ calls }: { calls: SessionCallTimes[] }) {
  // Now, fixed at first render: an open call's bar reaches it; the page's refresh lays it out again.
  const [nowMs] = useState(() => Date.now());
  const timeline = layoutSessionTimeline(calls, nowMs);
  if (!timeline) return null;
  const markKinds = (["handshake", "catalog"] as const).filter((kind) =>
    timeline.marks.some((mark) => mark.kind === kind),
  );
  return (
    <section
      aria-labelledby="session-timeline"
      className={`panel ${styles.timeline}`}
      data-testid="session-timeline"
    >
      <h2 id="session-timeline">Calls on a timeline</h2>
      <p className="muted">
        From {formatAbsolute(timeline.startAt)}, over {formatDuration(timeline.spanMs)}: each call from its
        start to its response, coloured by its chain's state.
        {timeline.withoutCall > 0 &&
          ` ${timeline.withoutCall} chain${timeline.withoutCall === 1 ? " has" : "s have"} no call.`}
        {timeline.leftOut > 0 && ` The ${timeline.leftOut} latest calls are left out.`}
      </p>
      <div className={styles.rows}>
        <div className={styles.row} aria-hidden="true">
          <span />
          <div className={styles.axis}>
            {timeline.ticks.map((tick) => (
              <span key={tick.offsetMs} className={styles.tick} style={{ left: `${tick.leftPct}%` }}>
                {tick.label}
              </span>
            ))}
          </div>
        </div>
        <ol className={styles.list}>
          {markKinds.map((kind) => (
            <li key={kind} className={styles.row} data-testid={`timeline-${kind}`}>
              <span className={styles.label}>{MARK_WORDS[kind]}</span>
              <div className={styles.track}>
                {timeline.marks
                  .filter((mark) => mark.kind === kind)
                  .map((mark) => (
                    <span
                      key={mark.offsetMs}
                      className={styles.mark}
                      style={{ left: `${mark.leftPct}%` }}
                      title={`${MARK_WORDS[kind]} at ${formatAbsolute(mark.at)}`}
                    />
                  ))}
              </div>
            </li>
          ))}
          {timeline.bars.map((bar) => {
            const meta = STATE_META[bar.state];
            const name = bar.tool ?? bar.chainId;
            return (
              <li
                key={bar.chainId}
                className={styles.row}
                data-testid="timeline-call"
                data-chain-id={bar.chainId}
              >
                <span className={styles.label}>
                  <span className="mono">{name}</span>{" "}
                  <span className={styles.duration} data-testid="timeline-duration">
                    {bar.durationText}
                  </span>
                </span>
                <div className={styles.track}>
                  <Link
                    href={chainHref(bar.chainId)}
                    className={`${styles.bar} ${bar.end === "response" ? "" : styles.unended}`}
                    style={
                      {
                        left: `${bar.leftPct}%`,
                        width: `${bar.widthPct}%`,
                        "--state-color": meta.color,
                      } as React.CSSProperties
                    }
                    data-state={bar.state}
                    data-end={bar.end}
                    aria-label={`${name}: ${meta.label}, ${bar.durationText}, from +${formatDuration(bar.offsetMs)}`}
                    title={`${name} · ${meta.label} · ${bar.durationText} · from +${formatDuration(bar.offsetMs)}`}
                  />
                </div>
              </li>
            );
          })}
        </ol>
      </div>
    </section>
  );
}
