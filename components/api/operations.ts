"use client";

import { useQuery } from "@tanstack/react-query";
import type { OperationDetail } from "@/lib/operations/views";
import { apiFetch } from "./http";

/** One operation (its attempts, lease and guard decisions), refreshed while the page is open. */
export function useOperation(key: string) {
  return useQuery({
    queryKey: ["operation", key],
    queryFn: () => apiFetch<OperationDetail>(`/api/v1/operations/${encodeURIComponent(key)}`),
    refetchInterval: 15_000,
  });
}
