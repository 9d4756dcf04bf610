"use client";

import type { KeyboardEvent } from "react";

/**
 * Keyboard support for a table body whose rows carry `data-nav-row` and `tabIndex={0}`: ↑/↓ (or k/j) move between
 * rows, Home/End jump, Enter or Space activates the focused row (its `[data-row-link]`, or the row's own click).
 */
export function rowNavigationKeys(event: KeyboardEvent<HTMLTableSectionElement>) {
  const target = event.target as HTMLElement;
  const row = target.closest<HTMLTableRowElement>("tr[data-nav-row]");
  if (!row || target !== row) return; // keys inside a row's own controls are theirs
  const rows = Array.from(event.currentTarget.querySelectorAll<HTMLTableRowElement>("tr[data-nav-row]"));
  const index = rows.indexOf(row);
  const moves: Record<string, number> = {
    ArrowDown: index + 1,
    j: index + 1,
    ArrowUp: index - 1,
    k: index - 1,
    Home: 0,
    End: rows.length - 1,
  };
  const next = moves[event.key];
  if (next !== undefined) {
    event.preventDefault();
    rows[Math.max(0, Math.min(rows.length - 1, next))]?.focus();
  } else if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    const link = row.querySelector<HTMLElement>("[data-row-link]");
    if (link) link.click();
    else row.click();
  }
}

/** Clicking anywhere on a row follows its link, unless the click was on a control inside the row. */
export function rowClick(event: { target: EventTarget; currentTarget: HTMLTableRowElement }) {
  const target = event.target as HTMLElement;
  if (target.closest("a, button, input, select, textarea, label")) return;
  event.currentTarget.querySelector<HTMLElement>("[data-row-link]")?.click();
}
