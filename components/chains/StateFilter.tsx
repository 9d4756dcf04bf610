"use client";

import type { State } from "@/lib/contract/states";
import { STATE_META, STATES_BY_SEVERITY } from "@/lib/dashboard/state-meta";
import styles from "./StateFilter.module.css";

/** Several states at once, most dangerous first; each box applies at once. `selected` empty means any state. */
export function StateFilter({
  selected,
  onChange,
}: {
  selected: string[];
  onChange: (states: string[]) => void;
}) {
  const chosen = new Set(selected);
  function toggle(state: State, on: boolean) {
    onChange(STATES_BY_SEVERITY.filter((s) => (s === state ? on : chosen.has(s))));
  }
  return (
    <fieldset className={styles.states}>
      <legend>
        State{" "}
        {chosen.size > 0 && (
          <button type="button" className={styles.clear} onClick={() => onChange([])}>
            any
          </button>
        )}
      </legend>
      <div className={styles.boxes}>
        {STATES_BY_SEVERITY.map((state) => (
          <label key={state} className={styles.box} data-checked={chosen.has(state)}>
            <input
              type="checkbox"
              name="state"
              value={state}
              checked={chosen.has(state)}
              onChange={(event) => toggle(state, event.target.checked)}
            />
            <span
              className={styles.swatch}
              style={{ background: STATE_META[state].color }}
              aria-hidden="true"
            />
            {STATE_META[state].label}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
