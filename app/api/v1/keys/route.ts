import type { CreatedKey, KeySummary } from "@/lib/dashboard/api-types";
import { auditActor } from "@/lib/server/audit/audit-actor";
import { apiRoute, reply } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { createKeyFromDashboard, listKeySummaries, ZCreateKeyBody } from "@/lib/server/keys/manage-keys";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  { scope: "manage" },
  async (): Promise<{ keys: KeySummary[] }> => ({ keys: await listKeySummaries() }),
);

// The new key is in this answer only: no cache may keep it.
export const POST = apiRoute({ scope: "manage", body: ZCreateKeyBody }, async ({ body, caller }) =>
  reply<CreatedKey>(await createKeyFromDashboard(body, auditActor(caller)), {
    status: 201,
    headers: { "cache-control": "no-store" },
  }),
);

const notAllowed = methodNotAllowed("GET", "POST");
export { notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
