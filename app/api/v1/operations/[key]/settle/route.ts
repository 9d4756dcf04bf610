import { z } from "zod";
import { auditActor } from "@/lib/server/audit/audit-actor";
import { apiRoute } from "@/lib/server/http/api-route";
import { actorName } from "@/lib/server/http/authenticate";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { pathParams } from "@/lib/server/http/path-params";
import { rejectSecrets } from "@/lib/server/http/reject-secrets";
import { settleOperationLease } from "@/lib/server/operations/lease-settlement";
import { checkOperationKey } from "@/lib/server/operations/operations-service";

export const dynamic = "force-dynamic";

const ZSettleBody = z.strictObject({
  effect: z.enum(["committed", "absent"]),
  /** What proves it: a row id, a URL, a ticket number (committed only). */
  receipt: z.string().trim().min(1).max(256).optional(),
});

// An operator read the destination of a lease that expired with no record: committed or absent settles it.
export const POST = apiRoute(
  { scope: "respond", params: pathParams("key"), body: ZSettleBody },
  async ({ params, body, caller }) => {
    const key = checkOperationKey(params.key);
    rejectSecrets([["$.receipt", body.receipt]]);
    return settleOperationLease(
      key,
      {
        effect: body.effect,
        receipt: body.effect === "committed" ? (body.receipt ?? null) : null,
        by: actorName(caller),
      },
      auditActor(caller),
    );
  },
);

const notAllowed = methodNotAllowed("POST");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
