"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Role } from "@/lib/auth/roles";
import type { CreatedInvite, InviteView, OwnSession, TeamMember } from "@/lib/dashboard/team-types";
import { apiFetch } from "../api/http";

// The users API from the dashboard: Settings → Users (admins) and Account (everyone). Keys start with "team-" or
// "own-" so a write refreshes what it changes.

export function useTeam() {
  return useQuery({
    queryKey: ["team-users"],
    queryFn: () => apiFetch<{ users: TeamMember[] }>("/api/v1/users?include=disabled"),
  });
}

export function useInvites() {
  return useQuery({
    queryKey: ["team-invites"],
    queryFn: () => apiFetch<{ invites: InviteView[] }>("/api/v1/users/invites"),
  });
}

export type UserChange = { role?: Role; disabled?: boolean; displayName?: string };

export function useUpdateUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, change }: { id: string; change: UserChange }) =>
      apiFetch<{ user: TeamMember }>(`/api/v1/users/${encodeURIComponent(id)}`, {
        method: "PATCH",
        body: change,
      }),
    onSettled: () => client.invalidateQueries({ queryKey: ["team-users"] }),
  });
}

export function useCreateInvite() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { role: Role; expiresInHours: number }) =>
      apiFetch<CreatedInvite>("/api/v1/users/invites", { method: "POST", body: input }),
    onSettled: () => client.invalidateQueries({ queryKey: ["team-invites"] }),
  });
}

export function useRevokeInvite() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      apiFetch<{ invite: InviteView }>(`/api/v1/users/invites/${encodeURIComponent(id)}`, {
        method: "DELETE",
      }),
    onSettled: () => client.invalidateQueries({ queryKey: ["team-invites"] }),
  });
}

export function useOwnSessions() {
  return useQuery({
    queryKey: ["own-sessions"],
    queryFn: () => apiFetch<{ sessions: OwnSession[] }>("/api/v1/me/sessions"),
  });
}

export function useRevokeSession() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      apiFetch<{ revoked: string }>(`/api/v1/me/sessions/${encodeURIComponent(id)}`, { method: "DELETE" }),
    onSettled: () => client.invalidateQueries({ queryKey: ["own-sessions"] }),
  });
}

export function useRevokeOtherSessions() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => apiFetch<{ ended: number }>("/api/v1/me/sessions/revoke-others", { method: "POST" }),
    onSettled: () => client.invalidateQueries({ queryKey: ["own-sessions"] }),
  });
}

export function useChangePassword() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { currentPassword: string; newPassword: string }) =>
      apiFetch<{ otherSessionsEnded: number }>("/api/v1/me/password", { method: "POST", body: input }),
    onSettled: () => client.invalidateQueries({ queryKey: ["own-sessions"] }),
  });
}
