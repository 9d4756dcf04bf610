"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type FormEvent, useEffect, useRef, useState } from "react";
import type { SearchResults } from "@/lib/dashboard/api-types";
import { apiFetch, queryString } from "../api/http";
import styles from "./SearchBox.module.css";

/**
 * The header's one box: a chain id, session id, JSON-RPC request id or operation key. An id that names exactly one
 * chain or session opens it; anything else opens the results page (which also explains a refused query).
 * `/` focuses the box from anywhere outside a text field.
 */
export function SearchBox() {
  const router = useRouter();
  const client = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    function onKey(event: KeyboardEvent) {
      if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
      const target = event.target as HTMLElement | null;
      if (target?.closest("input, textarea, select, [contenteditable='true']")) return;
      event.preventDefault();
      input.current?.focus();
      input.current?.select();
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const q = input.current?.value.trim() ?? "";
    if (!q) return;
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

  return (
    <search className={styles.form}>
      <form onSubmit={submit} aria-busy={busy}>
        <label htmlFor="header-search" className="visually-hidden">
          Find a chain, session, request id or operation key
        </label>
        <input
          ref={input}
          id="header-search"
          name="q"
          type="search"
          placeholder="Find an id…  ( / )"
          autoComplete="off"
          spellCheck={false}
          maxLength={256}
          aria-keyshortcuts="/"
        />
      </form>
    </search>
  );
}
