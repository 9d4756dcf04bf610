"use client";

import type { ChangeEvent } from "react";
import { STATE_META, STATES_BY_SEVERITY } from "@/lib/dashboard/state-meta";
import styles from "./StateFilter.module.css";

/**
 * Several states at once, most dangerous first; each box applies at once. `selected` empty means any state. The
 * boxes are uncontrolled (the filter form re-mounts when the URL changes), so a tick shows before the URL catches
 * up and quick ticks in a row each count.
 */
export function StateFilter({
  selected,
  onChange,
}: {
  selected: string[];
  onChange: (states: string[]) => void;
}) {
  const chosen = new Set(selected);
  function changed(event: ChangeEvent<HTMLInputElement>) {
    const boxes = event.currentTarget
      .closest("fieldset")
      ?.querySelectorAll<HTMLInputElement>("input:checked");
    const ticked = new Set([...(boxes ?? [])].map((box) => box.value));
    onChange(STATES_BY_SEVERITY.filter((state) => ticked.has(state)));
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
          <label key={state} className={styles.box}>
            <input
              type="checkbox"
              name="state"
              value={state}
              defaultChecked={chosen.has(state)}
              onChange={changed}
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
