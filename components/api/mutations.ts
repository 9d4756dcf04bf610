"use client";

import type { LifecycleOutcome } from "@/lib/problems/lifecycle";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type {
  ChainChecksAnswer,
  CreatedKey,
  QueueName,
  ReconcileResult,
  TriageAction,
  TriageItemView,
} from "@/lib/dashboard/api-types";
import { apiFetch } from "./http";

// Writes from the dashboard. After each, the families of queries the write can change are refetched.
const chainPath = (chainId: string) => `/api/v1/chains/${encodeURIComponent(chainId)}`;

export type TriageInput = { action: TriageAction; queue: QueueName; assigneeId?: string; note?: string };

export function useTriageAction(chainId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: TriageInput) =>
      apiFetch<{ item: TriageItemView; lifecycle?: LifecycleOutcome }>(`${chainPath(chainId)}/triage`, {
        method: "POST",
        body: input,
      }),
    onSettled: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: ["queue"] }),
        client.invalidateQueries({ queryKey: ["chain-triage", chainId] }),
        client.invalidateQueries({ queryKey: ["alert-groups"] }),
      ]),
  });
}

/** "Check destination now": runs the chain's matching destination checks; a settled effect reconciles it. */
export function useCheckDestination(chainId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => apiFetch<ChainChecksAnswer>(`${chainPath(chainId)}/checks`, { method: "POST" }),
    onSuccess: (answer) => client.setQueryData(["chain-checks", chainId], answer),
    // A check that settles the effect moves the chain as a reconciliation does.
    onSettled: () =>
      Promise.all(
        ["queue", "chain", "chain-triage", "chains", "stats", "attention", "coverage", "alert-groups"].map(
          (key) => client.invalidateQueries({ queryKey: [key] }),
        ),
      ),
  });
}

export type ReconcileInput =
  | { status: "committed"; receipt: string; note?: string }
  | { status: "absent"; note?: string };

/** Where the last reconcile outcome of a chain is kept for the triage panel (see TriagePanel). */
export const reconcileResultKey = (chainId: string) => ["reconcile-result", chainId];

export function useReconcile(chainId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: ReconcileInput) =>
      apiFetch<ReconcileResult>(`${chainPath(chainId)}/reconcile`, { method: "POST", body: input }),
    // Stored here, not in a mutate() callback: the refetch below moves the chain out of the queue, which unmounts
    // the form, and React Query drops the callbacks of an unmounted caller.
    onSuccess: (result) => client.setQueryData(reconcileResultKey(chainId), result),
    // Reconciling moves the chain: every view that counts or lists chains may change.
    onSettled: () =>
      Promise.all(
        [
          "queue",
          "chain",
          "chain-triage",
          "chains",
          "stats",
          "trend",
          "attention",
          "session",
          "coverage",
        ].map((key) => client.invalidateQueries({ queryKey: [key] })),
      ),
  });
}

export function useCreateKey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { name: string; scopes: string[] }) =>
      apiFetch<CreatedKey>("/api/v1/keys", { method: "POST", body: input }),
    onSettled: () => client.invalidateQueries({ queryKey: ["keys"] }),
  });
}

export function useRevokeKey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (name: string) =>
      apiFetch<{ revoked: string }>(`/api/v1/keys/${encodeURIComponent(name)}`, { method: "DELETE" }),
    onSettled: () => client.invalidateQueries({ queryKey: ["keys"] }),
  });
}

export type AlertAssigneeInput = { action: "assign"; assigneeId: string } | { action: "unassign" };

/** Assigns an alert on the alerts page (its chain's queue item follows, when its state is a queue). */
export function useAssignAlert(fingerprint: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: AlertAssigneeInput) =>
      apiFetch<{ fingerprint: string }>(
        `/api/v1/routing/alerts/${encodeURIComponent(fingerprint)}/assignee`,
        {
          method: "POST",
          body: input,
        },
      ),
    onSettled: () =>
      Promise.all(
        ["alert-groups", "queue", "chain-triage"].map((key) => client.invalidateQueries({ queryKey: [key] })),
      ),
  });
}

export type NotificationTargetInput = { kind: "webhook" | "slack"; url: string; secret?: string };

export function useSaveNotificationTarget() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: NotificationTargetInput | null) =>
      apiFetch<{ target: unknown }>("/api/v1/me/notification-target", {
        method: input ? "PUT" : "DELETE",
        ...(input ? { body: input } : {}),
      }),
    onSettled: () => client.invalidateQueries({ queryKey: ["notification-target"] }),
  });
}

export function useTestNotificationTarget() {
  return useMutation({
    mutationFn: () =>
      apiFetch<{ deliveries: string[] }>("/api/v1/me/notification-target/test", { method: "POST" }),
  });
}
