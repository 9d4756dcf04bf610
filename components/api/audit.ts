"use client";

import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import type { AuditPage } from "@/lib/audit/audit-view";
import { apiFetch, queryString } from "./http";

export type AuditParams = Record<string, string | string[] | undefined>;

/** The audit log, newest first, a page at a time: "Load more" asks for the events before the last one shown. */
export function useAuditLog(params: AuditParams) {
  return useInfiniteQuery({
    queryKey: ["audit", params],
    queryFn: ({ pageParam }) =>
      apiFetch<AuditPage>(`/api/v1/audit${queryString({ ...params, before: pageParam ?? undefined })}`),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    placeholderData: keepPreviousData,
  });
}
