"use client";

import Link from "next/link";
import { useState } from "react";
import type { AuditEventView } from "@/lib/audit/audit-view";
import { Time } from "../ui/Time";
import { AuditDiff } from "./AuditDiff";
import { targetHref, targetLabel } from "./audit-links";
import styles from "./Audit.module.css";

/** One event: when, who, what, on which target; its before → after opens in place. */
export function AuditRow({ event }: { event: AuditEventView }) {
  const [open, setOpen] = useState(false);
  const href = targetHref(event);
  const label = targetLabel(event);
  const detailsId = `audit-event-${event.id}`;
  return (
    <li className={styles.row} data-testid="audit-event" data-event-id={event.id} data-action={event.action}>
      <div className={styles.when}>
        <Time iso={event.at} />
      </div>
      <div className={styles.who}>{event.actor}</div>
      <div className={styles.what}>
        <code>{event.action}</code>
      </div>
      <div className={styles.target}>{href ? <Link href={href}>{label}</Link> : label}</div>
      <button
        type="button"
        className={`button small ${styles.toggle}`}
        aria-expanded={open}
        aria-controls={detailsId}
        onClick={() => setOpen((value) => !value)}
      >
        {open ? "Hide changes" : "Changes"}
      </button>
      {open && (
        <div id={detailsId} className={styles.details}>
          <AuditDiff before={event.before} after={event.after} />
        </div>
      )}
    </li>
  );
}
