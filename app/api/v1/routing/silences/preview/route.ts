import { ROUTING_BODY_BYTES } from "@/lib/server/routing/api/read-body";
import { postSilencePreview, ZSilencePreviewBody } from "@/lib/server/routing/api/silences-api";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

// A read: it answers "what would this silence mute?" and stores nothing.
export const POST = apiRoute(
  { scope: "read", body: ZSilencePreviewBody, maxBytes: ROUTING_BODY_BYTES },
  ({ body }) => postSilencePreview(body),
);

const notAllowed = methodNotAllowed("POST");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
