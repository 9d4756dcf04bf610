"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
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

export type SettleInput = { effect: "committed"; receipt: string } | { effect: "absent" };

/** Settles a lease that expired with no record: what the operator saw at the destination. */
export function useSettleLease(key: string) {
  const client = useQueryClient();
  const path = `/api/v1/operations/${encodeURIComponent(key)}`;
  return useMutation({
    mutationFn: (input: SettleInput) =>
      apiFetch<OperationDetail>(`${path}/settle`, { method: "POST", body: input }),
    onSuccess: (detail) => client.setQueryData(["operation", key], detail),
  });
}

/** "Check destination now" for an expired lease: the matching destination checks read it by the key. */
export function useCheckOperation(key: string) {
  const client = useQueryClient();
  const path = `/api/v1/operations/${encodeURIComponent(key)}`;
  return useMutation({
    mutationFn: () => apiFetch<OperationDetail>(`${path}/checks`, { method: "POST" }),
    onSettled: () => client.invalidateQueries({ queryKey: ["operation", key] }),
  });
}
