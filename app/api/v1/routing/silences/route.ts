import { ROUTING_BODY_BYTES } from "@/lib/server/routing/api/read-body";
import { auditActor } from "@/lib/server/audit/audit-actor";
import { getSilences, postSilence, ZSilenceBody } from "@/lib/server/routing/api/silences-api";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ scope: "read" }, () => getSilences());
export const POST = apiRoute(
  { scope: "respond", body: ZSilenceBody, maxBytes: ROUTING_BODY_BYTES },
  ({ body, caller }) => postSilence(body, auditActor(caller)),
);

const notAllowed = methodNotAllowed("GET", "POST");
export { notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
