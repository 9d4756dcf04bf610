"use client";

import type { TeamMember } from "@/lib/dashboard/team-types";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type {
  ChainChecksAnswer,
  ChainDetail,
  ChainPage,
  ChainSummary,
  ChainTriage,
  Coverage,
  Facets,
  KeySummary,
  QueueName,
  QueuePage,
  SearchResults,
  SessionView,
  Stats,
  TimeWindow,
  Trend,
} from "@/lib/dashboard/api-types";
import { useLiveRefetch } from "../ui/use-auto-refresh";
import { apiFetch, queryString } from "./http";

// One hook per read endpoint. Keys start with the endpoint's name so a mutation can invalidate a whole family.
const LIVE = 30_000; // the overview and queues refresh themselves: an on-call screen stays current

export function useStats(since: string) {
  return useQuery({
    queryKey: ["stats", since],
    queryFn: () => apiFetch<Stats>(`/api/v1/stats${queryString({ since })}`),
    refetchInterval: LIVE,
  });
}

export function useTrend(window: TimeWindow) {
  return useQuery({
    queryKey: ["trend", window],
    queryFn: () => apiFetch<Trend>(`/api/v1/stats/trend${queryString({ window })}`),
    refetchInterval: LIVE,
    placeholderData: keepPreviousData,
  });
}

export function useAttention(since: string, limit = 10) {
  return useQuery({
    queryKey: ["attention", since, limit],
    queryFn: () => apiFetch<{ chains: ChainSummary[] }>(`/api/v1/attention${queryString({ since, limit })}`),
    refetchInterval: LIVE,
  });
}

export type ChainListParams = Record<string, string | string[] | undefined>;

export function useChainList(params: ChainListParams) {
  const live = useLiveRefetch();
  return useQuery({
    ...live,
    queryKey: ["chains", params],
    queryFn: () => apiFetch<ChainPage>(`/api/v1/chains${queryString(params)}`),
    placeholderData: keepPreviousData,
  });
}

export function useChain(chainId: string) {
  const live = useLiveRefetch();
  return useQuery({
    ...live,
    queryKey: ["chain", chainId],
    queryFn: () => apiFetch<ChainDetail>(`/api/v1/chains/${encodeURIComponent(chainId)}`),
  });
}

/** The chain's destination check runs (GET /api/v1/chains/{id}/checks). */
export function useChainChecks(chainId: string) {
  const live = useLiveRefetch();
  return useQuery({
    ...live,
    queryKey: ["chain-checks", chainId],
    queryFn: () => apiFetch<ChainChecksAnswer>(`/api/v1/chains/${encodeURIComponent(chainId)}/checks`),
  });
}

export function useChainTriage(chainId: string) {
  const live = useLiveRefetch();
  return useQuery({
    ...live,
    queryKey: ["chain-triage", chainId],
    queryFn: () => apiFetch<ChainTriage>(`/api/v1/chains/${encodeURIComponent(chainId)}/triage`),
  });
}

export function useSession(sessionId: string) {
  const live = useLiveRefetch();
  return useQuery({
    ...live,
    queryKey: ["session", sessionId],
    queryFn: () => apiFetch<SessionView>(`/api/v1/sessions/${encodeURIComponent(sessionId)}`),
  });
}

export function useQueue(
  queue: QueueName,
  params: { status: string; cursor?: string; limit?: number; assignee?: string },
) {
  const slug = queue === "false_success" ? "false-success" : "effect-unknown";
  const live = useLiveRefetch();
  return useQuery({
    queryKey: ["queue", queue, params],
    queryFn: () => apiFetch<QueuePage>(`/api/v1/queues/${slug}${queryString(params)}`),
    ...live,
    placeholderData: keepPreviousData,
  });
}

export function useCoverage(since: string | undefined) {
  return useQuery({
    queryKey: ["coverage", since ?? "all"],
    queryFn: () => apiFetch<Coverage>(`/api/v1/coverage${queryString({ since })}`),
  });
}

export function useFacets() {
  return useQuery({
    queryKey: ["facets"],
    queryFn: () => apiFetch<Facets>("/api/v1/facets"),
    staleTime: 5 * 60_000,
  });
}

export function useKeys() {
  return useQuery({
    queryKey: ["keys"],
    queryFn: () => apiFetch<{ keys: KeySummary[] }>("/api/v1/keys"),
  });
}

export function useSearch(q: string) {
  return useQuery({
    queryKey: ["search", q],
    queryFn: () => apiFetch<SearchResults>(`/api/v1/search${queryString({ q })}`),
    enabled: q.trim().length > 0,
  });
}

/** The team the assignee picker offers (responders and admins who are not disabled can be assigned). */
export function useTeamMembers() {
  return useQuery({
    // Disabled users too: an item may still name one, and the picker shows who that was.
    queryKey: ["users", "include-disabled"],
    queryFn: () => apiFetch<{ users: TeamMember[] }>("/api/v1/users?include=disabled"),
    staleTime: 60_000,
  });
}

export type NotificationTargetShown = { kind: "webhook" | "slack"; url: string; signed: boolean };

/** The signed-in user's own notification target, masked as the API shows it. */
export function useNotificationTarget() {
  return useQuery({
    queryKey: ["notification-target"],
    queryFn: () => apiFetch<{ target: NotificationTargetShown | null }>("/api/v1/me/notification-target"),
  });
}
