"use client";

import { type FormEvent, useRef } from "react";
import { STATE_META, STATES_BY_SEVERITY } from "@/lib/dashboard/state-meta";
import type { UrlUpdate } from "../ui/use-url-state";
import styles from "./Problems.module.css";

/** State, server, tool and text filters, read from and written to the URL (selects at once, text on Enter). */
export function ProblemFilters({
  params,
  onChange,
}: {
  params: URLSearchParams;
  onChange: (u: UrlUpdate) => void;
}) {
  const form = useRef<HTMLFormElement>(null);
  const key = params.toString();

  function apply(event?: FormEvent) {
    event?.preventDefault();
    const data = new FormData(form.current ?? undefined);
    const text = (name: string) => String(data.get(name) ?? "").trim() || null;
    onChange({
      state: text("state"),
      server: text("server"),
      tool: text("tool"),
      text: text("text"),
      assignee: data.get("mine") ? "me" : null,
    });
  }

  return (
    <form
      ref={form}
      onSubmit={apply}
      className={`panel ${styles.filters}`}
      aria-label="Filter problems"
      key={key}
    >
      <div className="field">
        <label htmlFor="problem-state">State</label>
        <select
          id="problem-state"
          name="state"
          defaultValue={params.get("state") ?? ""}
          onChange={() => apply()}
        >
          <option value="">Any state</option>
          {STATES_BY_SEVERITY.filter((state) => state !== "healthy" && state !== "working").map((state) => (
            <option key={state} value={state}>
              {STATE_META[state].label}
            </option>
          ))}
        </select>
      </div>
      {(["server", "tool", "text"] as const).map((name) => (
        <div className="field" key={name}>
          <label htmlFor={`problem-${name}`}>
            {name === "text" ? "Contains" : name[0]?.toUpperCase() + name.slice(1)}
          </label>
          <input
            id={`problem-${name}`}
            name={name}
            defaultValue={params.get(name) ?? ""}
            placeholder={name === "text" ? "server, tool, state or reason" : undefined}
            maxLength={128}
          />
        </div>
      ))}
      <label className={styles.mine}>
        <input
          type="checkbox"
          name="mine"
          defaultChecked={params.get("assignee") === "me"}
          onChange={() => apply()}
        />{" "}
        Assigned to me
      </label>
      <div className={styles.filterActions}>
        <button type="submit" className="button primary small">
          Apply
        </button>
        <button
          type="button"
          className="button small"
          onClick={() => onChange({ state: null, server: null, tool: null, text: null, assignee: null })}
        >
          Clear
        </button>
      </div>
    </form>
  );
}
