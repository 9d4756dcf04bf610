"use client";

import { type KeyboardEvent, useState } from "react";
import styles from "./ChainFilters.module.css";

const LABEL = /^[a-z][a-z0-9_.-]{0,62}:.{1,256}$/s;

/** Label filters as removable chips (`env:prod`); several labels must all match. */
export function LabelFilter({
  labels,
  keys,
  onChange,
}: {
  labels: string[];
  keys?: string[];
  onChange: (labels: string[]) => void;
}) {
  const [draft, setDraft] = useState("");
  const [error, setError] = useState<string | null>(null);

  function add() {
    const value = draft.trim();
    if (!value) return;
    if (!LABEL.test(value)) {
      setError("Write key:value, e.g. env:prod (keys are lower-case).");
      return;
    }
    setError(null);
    setDraft("");
    if (!labels.includes(value)) onChange([...labels, value]);
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === "Enter") {
      event.preventDefault(); // a label is added, not the whole form submitted
      add();
    }
  }

  return (
    <div className="field">
      <label htmlFor="filter-label">Label</label>
      <div className={styles.labelRow}>
        <input
          id="filter-label"
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={onKeyDown}
          placeholder={keys?.length ? `${keys[0]}:value` : "key:value"}
          list="label-key-options"
          aria-describedby={error ? "filter-label-error" : undefined}
          autoComplete="off"
        />
        <button type="button" className="button small" onClick={add}>
          Add
        </button>
      </div>
      {keys && (
        <datalist id="label-key-options">
          {keys.map((key) => (
            <option key={key} value={`${key}:`} />
          ))}
        </datalist>
      )}
      {error && (
        <span id="filter-label-error" className="field-error">
          {error}
        </span>
      )}
      {labels.length > 0 && (
        <ul className={styles.chips} aria-label="Label filters">
          {labels.map((label) => (
            <li key={label}>
              <span className="mono">{label}</span>
              <button
                type="button"
                aria-label={`Remove label filter ${label}`}
                onClick={() => onChange(labels.filter((l) => l !== label))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
