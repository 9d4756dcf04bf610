// The users API (/api/v1/users, /api/v1/me, /api/auth/invites): what the server answers and the dashboard reads.
import type { Role } from "@/lib/auth/roles";

export type TeamMember = {
  id: string;
  username: string;
  displayName: string | null;
  role: Role;
  disabled: boolean;
  createdAt: string;
  /** The latest activity of any of the user's sessions; null when they never signed in. */
  lastSeenAt: string | null;
};

export type InviteStatus = "pending" | "used" | "expired" | "revoked";

export type InviteView = {
  id: string;
  role: Role;
  status: InviteStatus;
  createdBy: string;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
  revokedAt: string | null;
};

/** The answer to creating an invitation: the link holds the token, which is in this answer only. */
export type CreatedInvite = { invite: InviteView; link: string };

/** What the public join page may know about an invitation. */
export type InviteLookup = { role: Role; expiresAt: string };

export type OwnSession = {
  id: string;
  createdAt: string;
  lastSeenAt: string;
  method: string;
  userAgent: string | null;
  address: string | null;
  /** The session of the request that listed them ("this browser"). */
  current: boolean;
};
