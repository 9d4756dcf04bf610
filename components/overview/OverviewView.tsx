"use client";

import { useSearchParams } from "next/navigation";
import { useEffect, useState } from "react";
import { parseWindow, WINDOW_SPEC, windowStart } from "@/lib/dashboard/time-windows";
import { AttentionList } from "./AttentionList";
import styles from "./Overview.module.css";
import { QueueSizes } from "./QueueSizes";
import { StateCounts } from "./StateCounts";
import { TrendChart } from "./TrendChart";
import { WindowPicker } from "./WindowPicker";

/** The on-call landing page: what is not green in the chosen window, how it moved, and what waits for a person. */
export function OverviewView() {
  const window = parseWindow(useSearchParams().get("window"));
  const since = useWindowStart(window);
  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <h1>Overview</h1>
          <p>
            Chains observed in the {WINDOW_SPEC[window].label.toLowerCase()}, by their current state. Missing
            evidence is never green.
          </p>
        </div>
        <WindowPicker current={window} />
      </div>
      <StateCounts since={since} window={window} />
      <div className={styles.columns}>
        <TrendChart window={window} />
        <QueueSizes />
      </div>
      <AttentionList since={since} />
    </div>
  );
}

/** The window's start, moved on as time passes (it is rounded to the chart's bucket, so it moves rarely). */
function useWindowStart(window: ReturnType<typeof parseWindow>): string {
  const [nowMs, setNowMs] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNowMs(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);
  return windowStart(window, nowMs).toISOString();
}
