"use client";

import styles from "./AssigneePicker.module.css";

/** The "Assigned to me" filter: a toggle whose state lives in the URL (`assignee=me`), so a link shares it. */
export function AssignedToMeToggle({ on, onChange }: { on: boolean; onChange: (on: boolean) => void }) {
  return (
    <div className={styles.toggleRow}>
      <button
        type="button"
        className={`button small ${on ? "primary" : ""}`}
        aria-pressed={on}
        onClick={() => onChange(!on)}
      >
        {on ? "✓ " : ""}Assigned to me
      </button>
    </div>
  );
}
