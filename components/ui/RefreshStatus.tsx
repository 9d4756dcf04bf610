"use client";

import { type QueryKey, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import styles from "./RefreshStatus.module.css";
import { setAutoRefreshPaused, useAutoRefreshPaused } from "./use-auto-refresh";

/** "Updated 12 s ago" for the newest data under `queryKey` (a prefix: ["queue"] covers every queue page). */
export function RefreshStatus({ queryKey }: { queryKey: QueryKey }) {
  const client = useQueryClient();
  const paused = useAutoRefreshPaused();
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, []);
  const queries = client.getQueryCache().findAll({ queryKey });
  const updatedAt = Math.max(0, ...queries.map((query) => query.state.dataUpdatedAt));
  const fetching = queries.some((query) => query.state.fetchStatus === "fetching");
  return (
    <div className={styles.status} data-testid="refresh-status">
      <span aria-live="off" data-paused={paused}>
        {fetching ? "Updating…" : updatedAt > 0 && now !== null ? `Updated ${ago(now - updatedAt)}` : ""}
        {paused ? " · paused" : ""}
      </span>
      <button
        type="button"
        className="button small"
        aria-pressed={paused}
        onClick={() => setAutoRefreshPaused(!paused)}
        title={paused ? "Read again every 15 s" : "Stop reading again until resumed"}
      >
        {paused ? "Resume" : "Pause"}
      </button>
    </div>
  );
}

function ago(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.floor(seconds / 60);
  return minutes < 60 ? `${minutes} min ago` : `${Math.floor(minutes / 60)} h ago`;
}
