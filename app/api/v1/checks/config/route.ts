import { z } from "zod";
import type { ChecksConfigAnswer } from "@/lib/dashboard/api-types";
import { auditActor } from "@/lib/server/audit/audit-actor";
import { getChecksConfig, saveChecksConfig } from "@/lib/server/checks/checks-config-service";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

// The config holds no secret (headers and connections name RECEIPT_CHECK_* variables): `read` reads it.
export const GET = apiRoute({ scope: "read" }, async (): Promise<ChecksConfigAnswer> => getChecksConfig());

export const PUT = apiRoute(
  {
    scope: "config",
    body: z.unknown(),
    query: z.object({ comment: z.string().max(500).optional() }),
    maxBytes: 256 * 1024,
  },
  async ({ body, query, caller, request }): Promise<ChecksConfigAnswer> =>
    saveChecksConfig({
      config: body,
      actor: auditActor(caller),
      comment: query.comment ?? null,
      ifMatch: request.headers.get("if-match"),
    }),
);

const notAllowed = methodNotAllowed("GET", "PUT");
export { notAllowed as POST, notAllowed as PATCH, notAllowed as DELETE };
