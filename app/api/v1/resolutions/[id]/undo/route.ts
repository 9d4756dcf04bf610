import type { UndoOutcome } from "@/lib/problems/lifecycle";
import { auditActor } from "@/lib/server/audit/audit-actor";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { pathParams } from "@/lib/server/http/path-params";
import { undoResolution } from "@/lib/server/problems/undo-service";

export const dynamic = "force-dynamic";

// Undoes a resolve (a problem's, several problems', or a triage item's): `undo.id` of its answer.
export const POST = apiRoute(
  { scope: "respond", params: pathParams("id") },
  async ({ params, caller }): Promise<UndoOutcome> => undoResolution(params.id, auditActor(caller)),
);

const notAllowed = methodNotAllowed("POST");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
