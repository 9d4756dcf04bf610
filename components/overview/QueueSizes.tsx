"use client";

import Link from "next/link";
import type { QueueName } from "@/lib/dashboard/api-types";
import { formatCount } from "@/lib/dashboard/format";
import { STATE_META } from "@/lib/dashboard/state-meta";
import { useQueue } from "../api/queries";
import { StateIcon } from "../state/StateIcon";
import styles from "./Overview.module.css";

const QUEUES: { queue: QueueName; href: string; what: string }[] = [
  { queue: "false_success", href: "/queues/false-success", what: "said done, deliverable missing" },
  { queue: "effect_unknown", href: "/queues/effect-unknown", what: "writes to reconcile before any retry" },
];

/** The two triage queues' sizes (all time, shadowed chains included): what is waiting for a person. */
export function QueueSizes() {
  return (
    <section className="panel" aria-labelledby="queues-title">
      <h2 id="queues-title">Triage queues</h2>
      <div className={styles.queues}>
        {QUEUES.map((entry) => (
          <QueueSize key={entry.queue} {...entry} />
        ))}
      </div>
    </section>
  );
}

function QueueSize({ queue, href, what }: { queue: QueueName; href: string; what: string }) {
  const { data, isError } = useQueue(queue, { status: "open", limit: 1 });
  const meta = STATE_META[queue];
  return (
    <Link href={href} className={styles.queue} style={{ "--state-color": meta.color } as React.CSSProperties}>
      <span className={styles.tileHead}>
        <StateIcon name={meta.icon} /> {meta.label}
      </span>
      <span className={styles.queueCount} data-testid={`queue-${queue}`}>
        {isError ? "?" : data ? formatCount(data.counts.open) : "…"}
        <small> open</small>
      </span>
      <span className="muted">
        {data ? `${data.counts.acknowledged} acknowledged · ` : ""}
        {what}
      </span>
    </Link>
  );
}
