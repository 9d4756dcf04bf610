"use client";

import { relativeRangeMs } from "@/lib/dashboard/chain-list-query";
import type { UrlUpdate } from "../ui/use-url-state";
import styles from "./ChainFilters.module.css";

// Presets stay relative in the URL (`since=1h`): the API resolves them at every request, so a kept link or a
// reload still means "the last hour".
const PRESETS = [
  { label: "1 h", since: "1h" },
  { label: "24 h", since: "24h" },
  { label: "7 d", since: "7d" },
];

// datetime-local has no zone: the dashboard states times in UTC everywhere, so these inputs are UTC too.
const toInput = (iso: string | null) =>
  iso && relativeRangeMs(iso) === undefined && !Number.isNaN(Date.parse(iso))
    ? new Date(iso).toISOString().slice(0, 16)
    : "";
const fromInput = (value: string) => (value ? new Date(`${value}:00.000Z`).toISOString() : null);

/** Observed-time range: quick presets, or exact since/until (UTC), applied when a field is left. */
export function TimeRange({
  since,
  until,
  onChange,
}: {
  since: string | null;
  until: string | null;
  onChange: (u: UrlUpdate) => void;
}) {
  return (
    <fieldset className={styles.time}>
      <legend>Observed (UTC)</legend>
      <div className={styles.presets}>
        {PRESETS.map((preset) => (
          <button
            key={preset.label}
            type="button"
            className="button small"
            aria-pressed={since === preset.since}
            onClick={() => onChange({ since: preset.since, until: null })}
          >
            Last {preset.label}
          </button>
        ))}
        <button type="button" className="button small" onClick={() => onChange({ since: null, until: null })}>
          Any time
        </button>
      </div>
      <div className={styles.range}>
        <label>
          From
          <input
            type="datetime-local"
            defaultValue={toInput(since)}
            onBlur={(e) =>
              e.target.value !== toInput(since) && onChange({ since: fromInput(e.target.value) })
            }
          />
        </label>
        <label>
          To
          <input
            type="datetime-local"
            defaultValue={toInput(until)}
            onBlur={(e) =>
              e.target.value !== toInput(until) && onChange({ until: fromInput(e.target.value) })
            }
          />
        </label>
      </div>
    </fieldset>
  );
}
