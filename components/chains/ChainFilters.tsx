"use client";

import { type FormEvent, useRef } from "react";
import { splitStates } from "@/lib/dashboard/chain-list-query";
import { useFacets } from "../api/queries";
import type { UrlUpdate } from "../ui/use-url-state";
import styles from "./ChainFilters.module.css";
import { LabelFilter } from "./LabelFilter";
import { StateFilter } from "./StateFilter";
import { TimeRange } from "./TimeRange";

/**
 * The chain list's filters. The URL holds them: the form is filled from it and writes back to it, so a copied
 * link reproduces the view. Selects apply at once; text fields on Enter or "Apply".
 */
export function ChainFilters({
  params,
  onChange,
}: {
  params: URLSearchParams;
  onChange: (u: UrlUpdate) => void;
}) {
  const facets = useFacets().data;
  const form = useRef<HTMLFormElement>(null);
  const key = params.toString(); // re-mount the uncontrolled inputs when the URL changes (Back, links)

  function apply(event?: FormEvent) {
    event?.preventDefault();
    const data = new FormData(form.current ?? undefined);
    const text = (name: string) => String(data.get(name) ?? "").trim() || null;
    onChange({
      server: text("server"),
      client: text("client"),
      tool: text("tool"),
      session: text("session"),
    });
  }

  return (
    <form ref={form} onSubmit={apply} className={`panel ${styles.form}`} aria-label="Filter chains" key={key}>
      <StateFilter
        selected={splitStates(params.getAll("state"))}
        onChange={(states) => onChange({ state: states.length > 0 ? states.join(",") : null })}
      />
      <TextFilter name="server" label="Server" value={params.get("server")} options={facets?.servers} />
      <TextFilter name="tool" label="Tool" value={params.get("tool")} options={facets?.tools} />
      <TextFilter name="client" label="Client" value={params.get("client")} options={facets?.clients} />
      <TextFilter name="session" label="Session id" value={params.get("session")} />
      <LabelFilter
        labels={params.getAll("label")}
        keys={facets?.labelKeys}
        onChange={(label) => onChange({ label })}
      />
      <TimeRange since={params.get("since")} until={params.get("until")} onChange={onChange} />
      <div className={styles.actions}>
        <button type="submit" className="button primary small">
          Apply
        </button>
        <button type="button" className="button small" onClick={() => onChange(CLEARED)}>
          Clear all
        </button>
      </div>
    </form>
  );
}

const CLEARED: UrlUpdate = {
  state: null,
  server: null,
  client: null,
  tool: null,
  session: null,
  label: null,
  since: null,
  until: null,
  order: null,
  sort: null,
};

function TextFilter({
  name,
  label,
  value,
  options,
}: {
  name: string;
  label: string;
  value: string | null;
  options?: string[];
}) {
  return (
    <div className="field">
      <label htmlFor={`filter-${name}`}>{label}</label>
      <input
        id={`filter-${name}`}
        name={name}
        defaultValue={value ?? ""}
        list={options ? `${name}-options` : undefined}
        placeholder="any"
        autoComplete="off"
      />
      {options && (
        <datalist id={`${name}-options`}>
          {options.map((option) => (
            <option key={option} value={option} />
          ))}
        </datalist>
      )}
    </div>
  );
}
