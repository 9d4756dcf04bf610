"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type FormEvent, type KeyboardEvent, useEffect, useLayoutEffect, useRef, useState } from "react";
import type { Facets, SearchResults } from "@/lib/dashboard/api-types";
import { SEARCH_QUERY_MAX } from "@/lib/dashboard/search";
import {
  applySuggestion,
  type Suggestion,
  type SuggestionSource,
  suggestValues,
  type TypedToken,
  typedKeyPrefix,
  typedLabelKey,
  typedToken,
} from "@/lib/search/suggest";
import { apiFetch, queryString } from "../api/http";
import styles from "./SearchBox.module.css";

const NO_FACETS: Facets = { servers: [], clients: [], tools: [], labelKeys: [] };
const LIST_ID = "header-search-suggestions";

/** What to offer at the caret: stored values for a token being typed, or the keys a bare word could begin. */
function suggestionsAt(
  text: string,
  caret: number,
  facets: Facets,
): { token?: TypedToken; items: Suggestion[] } {
  const token = typedToken(text, caret);
  if (token) return { token, items: suggestValues(token, facets, text) };
  const key = typedKeyPrefix(text, caret);
  return key ? { token: key, items: key.suggestions } : { items: [] };
}

/**
 * The header's one box: ids (exact, then by prefix) and tokens — `server:` `tool:` `client:` `state:` `label:` —
 * with values suggested from what is stored (a combobox: ArrowUp/Down, Enter picks, Esc closes). A query naming
 * exactly one chain or session opens it, tokens alone open the filtered chain list, anything else the results page
 * (which also explains a refused query). `/` from outside a text field starts a fresh query.
 */
export function SearchBox() {
  const router = useRouter();
  const client = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const [text, setText] = useState("");
  const [caret, setCaret] = useState(0);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [focused, setFocused] = useState(false);
  const pendingCaret = useRef<number | null>(null);
  const facets = useQuery({
    queryKey: ["facets"],
    queryFn: () => apiFetch<Facets>("/api/v1/facets"),
    staleTime: 5 * 60_000,
    enabled: focused,
  });
  const labelKey = typedLabelKey(typedToken(text, caret));
  const labelValues = useQuery({
    queryKey: ["label-values", labelKey],
    queryFn: () =>
      apiFetch<{ values: string[] }>(`/api/v1/search/label-values${queryString({ key: labelKey ?? "" })}`),
    staleTime: 5 * 60_000,
    enabled: focused && labelKey !== undefined,
  });
  const source: SuggestionSource = {
    ...(facets.data ?? NO_FACETS),
    labelValues:
      labelKey && labelValues.data ? { key: labelKey, values: labelValues.data.values } : undefined,
  };
  const { token, items } = suggestionsAt(text, caret, source);
  const shown = open && focused ? items : [];

  useEffect(() => {
    function onKey(event: globalThis.KeyboardEvent) {
      if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
      const target = event.target as HTMLElement | null;
      if (target?.closest("input, textarea, select, [contenteditable='true']")) return;
      event.preventDefault();
      input.current?.focus();
      input.current?.select();
      setOpen(false);
      setActive(-1);
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  useLayoutEffect(() => {
    if (pendingCaret.current === null || !input.current) return;
    input.current.setSelectionRange(pendingCaret.current, pendingCaret.current);
    pendingCaret.current = null;
  });

  function edit(value: string, at: number) {
    setText(value);
    setCaret(at);
    setOpen(true);
    setActive(-1);
  }

  function pick(suggestion: Suggestion) {
    if (!token) return;
    const next = applySuggestion(text, token, suggestion);
    pendingCaret.current = next.caret;
    edit(next.text, next.caret);
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      if (!open) setOpen(true);
      if (items.length === 0) return;
      event.preventDefault();
      const last = items.length - 1;
      setActive((current) =>
        event.key === "ArrowDown" ? (current >= last ? 0 : current + 1) : current <= 0 ? last : current - 1,
      );
    } else if (event.key === "Enter" && shown.length > 0 && active >= 0 && shown[active]) {
      event.preventDefault();
      pick(shown[active]);
    } else if (event.key === "Escape" && shown.length > 0) {
      event.preventDefault();
      setOpen(false);
      setActive(-1);
    }
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    const q = text.trim();
    if (!q) return;
    setOpen(false);
    setBusy(true);
    try {
      const results = await client.fetchQuery({
        queryKey: ["search", q],
        queryFn: () => apiFetch<SearchResults>(`/api/v1/search${queryString({ q })}`),
      });
      router.push(results.target ?? `/search${queryString({ q })}`);
    } catch {
      router.push(`/search${queryString({ q })}`);
    } finally {
      setBusy(false);
    }
  }

  const activeId = shown[active] ? `${LIST_ID}-${active}` : undefined;
  return (
    <search className={styles.form}>
      <form onSubmit={submit} aria-busy={busy}>
        <label htmlFor="header-search" className="visually-hidden">
          Find a chain, session, request id or operation key
        </label>
        {/* The tokens are help, not the box's name: a form's own "State" or "Server" field keeps its label alone. */}
        <span id="header-search-help" className="visually-hidden">
          Filter with server:, tool:, client:, state: and label: tokens.
        </span>
        <input
          ref={input}
          id="header-search"
          name="q"
          type="search"
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={shown.length > 0}
          aria-controls={LIST_ID}
          aria-activedescendant={activeId}
          placeholder="Find an id, or server: tool: state:…  ( / )"
          autoComplete="off"
          spellCheck={false}
          maxLength={SEARCH_QUERY_MAX}
          aria-keyshortcuts="/"
          aria-describedby="header-search-help"
          value={text}
          onChange={(event) =>
            edit(event.target.value, event.target.selectionStart ?? event.target.value.length)
          }
          onSelect={(event) => setCaret(event.currentTarget.selectionStart ?? 0)}
          onKeyDown={onKeyDown}
          onFocus={() => setFocused(true)}
          onBlur={() => {
            setFocused(false);
            setOpen(false);
          }}
        />
        <div
          id={LIST_ID}
          role="listbox"
          aria-label="Suggestions"
          className={styles.list}
          hidden={shown.length === 0}
        >
          {shown.map((suggestion, index) => (
            <div
              key={suggestion.token}
              // The box keeps the focus (aria-activedescendant); -1 only makes the option a click target.
              tabIndex={-1}
              id={`${LIST_ID}-${index}`}
              role="option"
              aria-selected={index === active}
              className={styles.option}
              // Keep the focus in the box: a click picks without blurring it.
              onMouseDown={(event) => {
                event.preventDefault();
                pick(suggestion);
              }}
            >
              <span className="mono">{suggestion.label}</span>
              {token && <span className={styles.key}>{token.key}</span>}
            </div>
          ))}
        </div>
      </form>
    </search>
  );
}
