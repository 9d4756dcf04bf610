"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type {
  LifecycleOutcome,
  ProblemAssigneeResult,
  ProblemsBelow,
  UndoOutcome,
} from "@/lib/problems/lifecycle";
import type { ProblemResolutionResult, ProblemsPage } from "@/lib/problems/types";
import { apiFetch, queryString } from "./http";

// The problems page's read and its writes (kept apart from queries.ts and mutations.ts, which many views share).
const LIVE = 30_000;

export type ProblemsParams = Record<string, string | undefined>;
export type ProblemResolveAnswer = ProblemResolutionResult & Partial<LifecycleOutcome>;
export type BulkResolveAnswer = { problems: ProblemResolutionResult[] } & LifecycleOutcome;

/** What a resolve changes besides the problems: queue items, alerts, the overview's counts. */
const AFTER_RESOLVE = ["problems", "queue", "chain-triage", "stats", "attention", "alert-groups"];

export function useProblems(params: ProblemsParams) {
  return useQuery({
    queryKey: ["problems", params],
    queryFn: () => apiFetch<ProblemsPage>(`/api/v1/problems${queryString(params)}`),
    refetchInterval: LIVE,
    placeholderData: keepPreviousData,
  });
}

/** What a cascade would also resolve below these problems (asked for when a resolve is about to be confirmed). */
export function fetchProblemsBelow(keys: readonly string[]): Promise<ProblemsBelow> {
  const query = new URLSearchParams(keys.map((key) => ["key", key]));
  return apiFetch<ProblemsBelow>(`/api/v1/problems/below?${query}`);
}

export function useProblemAction() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({
      key,
      action,
      cascade = false,
    }: {
      key: string;
      action: "resolve" | "reopen";
      cascade?: boolean;
    }) =>
      apiFetch<ProblemResolveAnswer>(`/api/v1/problems/${encodeURIComponent(key)}/${action}`, {
        method: "POST",
        ...(action === "resolve" ? { body: { cascade } } : {}),
      }),
    onSettled: () => invalidate(client, AFTER_RESOLVE),
  });
}

export function useBulkResolve() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ keys, cascade }: { keys: string[]; cascade: boolean }) =>
      apiFetch<BulkResolveAnswer>("/api/v1/problems/resolve", { method: "POST", body: { keys, cascade } }),
    onSettled: () => invalidate(client, AFTER_RESOLVE),
  });
}

export function useUndoResolve() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      apiFetch<UndoOutcome>(`/api/v1/resolutions/${encodeURIComponent(id)}/undo`, { method: "POST" }),
    onSettled: () => invalidate(client, AFTER_RESOLVE),
  });
}

export function useProblemAssignee(key: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { action: "assign"; assigneeId: string } | { action: "unassign" }) =>
      apiFetch<ProblemAssigneeResult>(`/api/v1/problems/${encodeURIComponent(key)}/assignee`, {
        method: "POST",
        body,
      }),
    onSettled: () => client.invalidateQueries({ queryKey: ["problems"] }),
  });
}

function invalidate(client: ReturnType<typeof useQueryClient>, keys: string[]) {
  return Promise.all(keys.map((key) => client.invalidateQueries({ queryKey: [key] })));
}
