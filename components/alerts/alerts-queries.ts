"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { apiFetch, queryString } from "../api/http";
import type {
  AlertGroupsAnswer,
  DeliveryView,
  SilencePreviewAnswer,
} from "@/lib/dashboard/routing-api-types";

export type AlertGroupsParams = {
  status: string;
  state?: string;
  severity?: string;
  receiver?: string;
  chain?: string;
  q?: string;
  assignee?: string;
};

/** Firing (or recently resolved) alerts by receiver and group; refreshes itself, so a silence shows up. */
export function useAlertGroups(params: AlertGroupsParams) {
  return useQuery({
    queryKey: ["alert-groups", params],
    queryFn: () => apiFetch<AlertGroupsAnswer>(`/api/v1/routing/alerts/groups${queryString(params)}`),
    placeholderData: keepPreviousData,
    refetchInterval: 5_000,
  });
}

/** What a silence with these matchers would mute now (the server decides with the silences' own code). */
export function useSilencePreview(matchers: string[]) {
  return useQuery({
    queryKey: ["silence-preview", matchers],
    queryFn: () =>
      apiFetch<SilencePreviewAnswer>("/api/v1/routing/silences/preview", {
        method: "POST",
        body: { matchers },
      }),
    enabled: matchers.length > 0,
    placeholderData: keepPreviousData,
    retry: false,
  });
}

export type DeliveryPageParams = { status?: string; chain?: string; before?: string };

/** One page of the delivery log (keyed under "routing-deliveries", so a retry refreshes it); refreshes itself. */
export function useDeliveryPage(params: DeliveryPageParams) {
  return useQuery({
    queryKey: ["routing-deliveries", "page", params],
    queryFn: () =>
      apiFetch<{ deliveries: DeliveryView[]; nextCursor: string | null }>(
        `/api/v1/routing/deliveries${queryString({ ...params, limit: 50 })}`,
      ),
    placeholderData: keepPreviousData,
    refetchInterval: 3_000,
  });
}
