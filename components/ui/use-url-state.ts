"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback } from "react";

export type UrlUpdate = Record<string, string | string[] | null | undefined>;

/**
 * The URL's query string as the source of truth for a view's filters: read with `params`, change with `update`
 * (null/empty removes a key). Filter changes push a history entry, so Back undoes them and links reproduce them.
 */
export function useUrlState() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const update = useCallback(
    (changes: UrlUpdate, options: { keepCursor?: boolean } = {}) => {
      const next = new URLSearchParams(params.toString());
      if (!options.keepCursor) next.delete("cursor");
      for (const [key, value] of Object.entries(changes)) {
        next.delete(key);
        for (const item of Array.isArray(value) ? value : [value]) {
          if (item !== null && item !== undefined && item !== "") next.append(key, item);
        }
      }
      const query = next.toString();
      router.push(query ? `${pathname}?${query}` : pathname, { scroll: false });
    },
    [params, router, pathname],
  );
  return { params, update };
}
