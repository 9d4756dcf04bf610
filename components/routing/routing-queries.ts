"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import type { TRoutingConfig } from "@/lib/routing/config";
import { ApiClientError, apiFetch, queryString } from "../api/http";
import type {
  ConfigVersion,
  ConfigVersionDetail,
  DeliveryView,
  RouteTestAnswer,
  RoutingConfigAnswer,
  SilenceView,
} from "@/lib/dashboard/routing-api-types";
import type { TargetHealthAnswer } from "@/lib/routing/target-health";

// Server data of the routing page. Keys start with "routing-" so one save can refresh everything it affects.
const BASE = "/api/v1/routing";

/** Each target's delivery health (last success, last failure, dead letters), refreshed as deliveries happen. */
export function useTargetHealth() {
  return useQuery({
    queryKey: ["routing-target-health"],
    queryFn: () => apiFetch<TargetHealthAnswer>(`${BASE}/targets/health`),
    refetchInterval: 15_000,
  });
}

export function useRoutingConfig() {
  return useQuery({
    queryKey: ["routing-config"],
    queryFn: () => apiFetch<RoutingConfigAnswer>(`${BASE}/config`),
  });
}

/** One page of the config history, newest first (`before`: the cursor of the page before). */
export function useConfigVersions(before: string | null, limit = 20) {
  return useQuery({
    queryKey: ["routing-versions", before, limit],
    queryFn: () =>
      apiFetch<{ versions: ConfigVersion[]; nextCursor: string | null }>(
        `${BASE}/config/versions${queryString({ before, limit })}`,
      ),
  });
}

/** A stored version never changes: read once, kept. */
export function useConfigVersion(version: string | null) {
  return useQuery({
    queryKey: ["routing-version", version],
    queryFn: () =>
      apiFetch<ConfigVersionDetail>(`${BASE}/config/versions/${encodeURIComponent(version ?? "")}`),
    enabled: version !== null,
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** A refused save because the config changed meanwhile (409): reload it so the page shows what is in force now. */
const isConflict = (error: unknown) => error instanceof ApiClientError && error.status === 409;

/**
 * Saves a whole config (masked secrets are kept server-side). `If-Match` carries the version the edit started
 * from, so a concurrent change is refused (409) instead of silently overwritten.
 */
async function putConfig(input: { config: TRoutingConfig | unknown; baseVersion: string; comment: string }) {
  return apiFetch<RoutingConfigAnswer>(`${BASE}/config${queryString({ comment: input.comment })}`, {
    method: "PUT",
    headers: { "if-match": `"${input.baseVersion}"` },
    body: input.config,
  });
}

export function useSaveConfig() {
  const client = useQueryClient();
  const router = useRouter();
  return useMutation({
    mutationFn: putConfig,
    onSuccess: (saved) => {
      client.setQueryData(["routing-config"], saved);
      // The layout's "recorded but not delivered" banner is rendered on the server from the config in force.
      router.refresh();
    },
    onError: (error) => {
      if (isConflict(error)) void client.invalidateQueries({ queryKey: ["routing-config"] });
    },
    onSettled: () => client.invalidateQueries({ queryKey: ["routing-versions"] }),
  });
}

/** Restores a stored version server-side (its real secrets kept) as a new version, guarded like a save. */
export function useRestoreVersion() {
  const client = useQueryClient();
  const router = useRouter();
  return useMutation({
    mutationFn: (input: { version: string; baseVersion: string }) =>
      apiFetch<RoutingConfigAnswer>(`${BASE}/config/versions/${encodeURIComponent(input.version)}/restore`, {
        method: "POST",
        headers: { "if-match": `"${input.baseVersion}"` },
      }),
    onSuccess: (saved) => {
      client.setQueryData(["routing-config"], saved);
      router.refresh();
    },
    onError: (error) => {
      if (isConflict(error)) void client.invalidateQueries({ queryKey: ["routing-config"] });
    },
    onSettled: () => client.invalidateQueries({ queryKey: ["routing-versions"] }),
  });
}

export function useSilences() {
  return useQuery({
    queryKey: ["routing-silences"],
    queryFn: () => apiFetch<{ silences: SilenceView[] }>(`${BASE}/silences`),
  });
}

export type SilenceInput = { matchers: string[]; duration: string; comment: string };

export function useCreateSilence() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: SilenceInput) =>
      apiFetch<{ silence: SilenceView }>(`${BASE}/silences`, { method: "POST", body: input }),
    onSettled: () => client.invalidateQueries({ queryKey: ["routing-silences"] }),
  });
}

export function useExpireSilence() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiFetch(`${BASE}/silences/${encodeURIComponent(id)}`, { method: "DELETE" }),
    onSettled: () => client.invalidateQueries({ queryKey: ["routing-silences"] }),
  });
}

export function useRouteTest() {
  return useMutation({
    mutationFn: (input: { record: unknown } | { chainId: string }) =>
      apiFetch<RouteTestAnswer>(`${BASE}/route-test`, { method: "POST", body: input }),
  });
}

export function useTestNotification() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (channel: string) =>
      apiFetch<{ deliveries: string[] }>(`${BASE}/test-notification`, { method: "POST", body: { channel } }),
    onSettled: () => client.invalidateQueries({ queryKey: ["routing-deliveries"] }),
  });
}

/** The delivery log refreshes itself every few seconds: retries and dead letters show up without a reload. */
export function useDeliveries(status: string) {
  return useQuery({
    queryKey: ["routing-deliveries", status],
    queryFn: () =>
      apiFetch<{ deliveries: DeliveryView[]; nextCursor: string | null }>(
        `${BASE}/deliveries${queryString({ status, limit: 50 })}`,
      ),
    refetchInterval: 3_000,
  });
}

export function useRetryDelivery() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiFetch(`${BASE}/deliveries/${id}/retry`, { method: "POST", body: {} }),
    onSettled: () => client.invalidateQueries({ queryKey: ["routing-deliveries"] }),
  });
}
