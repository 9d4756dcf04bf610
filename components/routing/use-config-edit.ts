"use client";

import type { TRoutingConfig } from "@/lib/routing/config";
import { useRoutingConfig, useSaveConfig } from "./routing-queries";

/**
 * Every structured edit on the page is "copy the current (masked) config, change the copy, save it as a new version
 * based on the one shown". Validation happens on the server, so the page shows exactly the errors an import would.
 */
export function useConfigEdit() {
  const current = useRoutingConfig();
  const save = useSaveConfig();
  const edit = (comment: string, change: (draft: TRoutingConfig) => void) => {
    if (!current.data) return Promise.reject(new Error("the config is not loaded yet"));
    const draft = structuredClone(current.data.config);
    change(draft);
    return save.mutateAsync({ config: draft, baseVersion: current.data.version, comment });
  };
  return { current, save, edit };
}
