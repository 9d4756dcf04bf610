"use client";

import { useState } from "react";
import type { CreatedKey } from "@/lib/dashboard/api-types";
import styles from "./Keys.module.css";

/** The new key, once: copy it now, it cannot be shown again. */
export function NewKeyNotice({ created, onDismiss }: { created: CreatedKey; onDismiss: () => void }) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    await navigator.clipboard?.writeText(created.key).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  }
  return (
    <section className={styles.notice} role="status" aria-labelledby="new-key-title">
      <h2 id="new-key-title">Key "{created.summary.name}" created: copy it now</h2>
      <p>This is the only time Receipt shows it. Store it in the agent's secret store.</p>
      <div className={styles.keyRow}>
        <code className={styles.key} data-testid="new-key">
          {created.key}
        </code>
        <button type="button" className="button small" onClick={copy}>
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
      <button type="button" className="button small" onClick={onDismiss}>
        I have stored it
      </button>
    </section>
  );
}
