"use client";

import { useSyncExternalStore } from "react";

/** How often the lists, the chain and the session pages read again while they are live. */
export const AUTO_REFRESH_MS = 15_000;

// One switch for every live view, kept in localStorage so a pause survives reloads and holds across pages.
const STORAGE_KEY = "receipt.autoRefresh";
const listeners = new Set<() => void>();

function readPaused(): boolean {
  try {
    return window.localStorage.getItem(STORAGE_KEY) === "paused";
  } catch {
    return false; // storage refused (private mode): live by default
  }
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => event.key === STORAGE_KEY && listener();
  window.addEventListener("storage", onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", onStorage);
  };
}

export function setAutoRefreshPaused(paused: boolean) {
  try {
    if (paused) window.localStorage.setItem(STORAGE_KEY, "paused");
    else window.localStorage.removeItem(STORAGE_KEY);
  } catch {}
  for (const listener of listeners) listener();
}

/** Whether live views are paused (false while rendering on the server). */
export function useAutoRefreshPaused(): boolean {
  return useSyncExternalStore(subscribe, readPaused, () => false);
}

/** React Query options for a live view: refetch every AUTO_REFRESH_MS and on focus, unless paused. */
export function useLiveRefetch() {
  const paused = useAutoRefreshPaused();
  return { refetchInterval: paused ? false : AUTO_REFRESH_MS, refetchOnWindowFocus: !paused } as const;
}
