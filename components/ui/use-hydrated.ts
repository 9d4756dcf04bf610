"use client";

import { useEffect, useState } from "react";

/**
 * False in the server's HTML and on the first client render, true once React has hydrated the component and its
 * handlers are attached. A page's root client component puts it on its element as `data-hydrated`, the readiness
 * signal the end-to-end tests wait for before their first click or keystroke (one made earlier reaches no handler).
 */
export function useHydrated(): boolean {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}

/** The attribute: `data-hydrated="true"` once hydrated, absent before. */
export const hydratedMark = (hydrated: boolean) => ({ "data-hydrated": hydrated ? "true" : undefined });
