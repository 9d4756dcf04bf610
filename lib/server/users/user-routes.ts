import { z } from "zod";
import {
  ZAcceptInviteBody,
  ZChangePasswordBody,
  ZCreateInviteBody,
  ZTeamQuery,
  ZUpdateUserBody,
} from "@/lib/auth/user-input";
import type {
  CreatedInvite,
  InviteLookup,
  InviteView,
  OwnSession,
  TeamMember,
} from "@/lib/dashboard/team-types";
import { sessionCookie } from "../auth/sessions";
import { apiRoute, reply } from "../http/api-route";
import { pathParams } from "../http/path-params";
import { rejectForeignOrigin } from "../http/same-origin";
import {
  acceptInvitation,
  createInvitation,
  listInvitations,
  lookupInvitation,
  revokeInvitation,
} from "./invitations";
import {
  changeOwnPassword,
  listOwnSessions,
  revokeOtherSessions,
  revokeOwnSession,
  userCaller,
} from "./own-account";
import { listTeam, updateTeamMember } from "./team";

// The users API's handlers, one per route file under app/api: the files only bind them to methods.
const ZIdParam = z.object({ id: z.uuid("not an id") });
const noStore = { "cache-control": "no-store" };

export const listUsersRoute = apiRoute(
  { scope: "read", query: ZTeamQuery },
  async ({ query }): Promise<{ users: TeamMember[] }> => ({ users: await listTeam(query) }),
);

export const updateUserRoute = apiRoute(
  { scope: "manage", params: ZIdParam, body: ZUpdateUserBody },
  async ({ caller, params, body }) => updateTeamMember(userCaller(caller), params.id, body),
);

// The token is in this answer only: no cache may keep it.
export const createInviteRoute = apiRoute(
  { scope: "manage", body: ZCreateInviteBody },
  async ({ caller, body }) =>
    reply<CreatedInvite>(await createInvitation(userCaller(caller), body), { status: 201, headers: noStore }),
);

export const listInvitesRoute = apiRoute(
  { scope: "manage" },
  async (): Promise<{ invites: InviteView[] }> => ({ invites: await listInvitations() }),
);

export const revokeInviteRoute = apiRoute(
  { scope: "manage", params: ZIdParam },
  async ({ caller, params }): Promise<{ invite: InviteView }> => ({
    invite: await revokeInvitation(userCaller(caller), params.id),
  }),
);

const isHttps = (request: Request) =>
  new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";

// Public: the join page asks what the link offers before the visitor picks a username.
export const lookupInviteRoute = apiRoute(
  { scope: "public", params: pathParams("token") },
  async ({ params }): Promise<InviteLookup> => lookupInvitation(params.token),
);

/** Public, like sign-in: JSON only (apiRoute answers 415 otherwise), from this site only. */
export const acceptInviteRoute = apiRoute(
  { scope: "public", params: pathParams("token"), body: ZAcceptInviteBody, maxBytes: 4096 },
  async ({ request, params, body }) => {
    rejectForeignOrigin(request);
    const session = await acceptInvitation(params.token, body, request);
    return reply(
      { user: { username: session.user.username, role: session.user.role } },
      { status: 201, headers: { ...noStore, "set-cookie": sessionCookie(session.token, isHttps(request)) } },
    );
  },
);

export const changePasswordRoute = apiRoute(
  { scope: "self", body: ZChangePasswordBody, maxBytes: 4096 },
  async ({ caller, body, request }) => changeOwnPassword(userCaller(caller), body, request),
);

export const listOwnSessionsRoute = apiRoute(
  { scope: "self" },
  async ({ caller }): Promise<{ sessions: OwnSession[] }> => ({
    sessions: await listOwnSessions(userCaller(caller)),
  }),
);

export const revokeOwnSessionRoute = apiRoute(
  { scope: "self", params: ZIdParam },
  async ({ caller, params }): Promise<{ revoked: string }> => {
    await revokeOwnSession(userCaller(caller), params.id);
    return { revoked: params.id };
  },
);

export const revokeOtherSessionsRoute = apiRoute({ scope: "self" }, async ({ caller }) =>
  revokeOtherSessions(userCaller(caller)),
);
