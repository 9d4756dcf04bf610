"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { ProblemResolutionResult, ProblemsPage } from "@/lib/problems/types";
import { apiFetch, queryString } from "./http";

// The problems page's read and its two writes (kept apart from queries.ts and mutations.ts, which many views share).
const LIVE = 30_000;

export type ProblemsParams = Record<string, string | undefined>;

export function useProblems(params: ProblemsParams) {
  return useQuery({
    queryKey: ["problems", params],
    queryFn: () => apiFetch<ProblemsPage>(`/api/v1/problems${queryString(params)}`),
    refetchInterval: LIVE,
    placeholderData: keepPreviousData,
  });
}

export function useProblemAction() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ key, action }: { key: string; action: "resolve" | "reopen" }) =>
      apiFetch<ProblemResolutionResult>(`/api/v1/problems/${encodeURIComponent(key)}/${action}`, {
        method: "POST",
      }),
    onSettled: () => client.invalidateQueries({ queryKey: ["problems"] }),
  });
}
