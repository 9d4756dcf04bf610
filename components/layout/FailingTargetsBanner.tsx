"use client";

import Link from "next/link";
import { useTargetHealth } from "../routing/routing-queries";
import styles from "./DeliveryBanner.module.css";

/**
 * Shown on every dashboard page while a target's newest delivery attempt failed: alerts routed there are stored
 * but may reach nobody. Names each failing target with its last failure as a sentence; hidden once they deliver.
 */
export function FailingTargetsBanner() {
  const health = useTargetHealth();
  const failing = (health.data?.targets ?? []).filter((target) => target.status === "failing");
  if (failing.length === 0) return null;
  return (
    <div className={styles.banner} role="status" data-testid="failing-targets-banner">
      <div className={styles.inner}>
        <strong>
          Deliveries are failing to {failing.length} target{failing.length === 1 ? "" : "s"}:
        </strong>
        <ul className={styles.list}>
          {failing.map((target) => (
            <li key={`${target.channel}:${target.targetIndex}`} data-testid="failing-target">
              <code>{target.channel}</code> target {target.targetIndex + 1} ({target.type}):{" "}
              {target.lastFailure?.sentence ?? "its newest attempt failed."}
              {target.dead > 0 ? ` ${target.dead} dead this week.` : ""}
            </li>
          ))}
        </ul>
        <Link href="/routing#channels">See the targets</Link> ·{" "}
        <Link href="/routing?deliveries_status=dead#deliveries">the dead deliveries</Link>
      </div>
    </div>
  );
}
