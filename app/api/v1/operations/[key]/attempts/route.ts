import { ZGuardRequest } from "@/lib/operations/schemas";
import { apiRoute, reply } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { pathParams } from "@/lib/server/http/path-params";
import {
  checkOperationKey,
  guardAttempt,
  guardReplyBody,
  prefetchGuardFacts,
} from "@/lib/server/operations/operations-service";

export const dynamic = "force-dynamic";

export const POST = apiRoute(
  {
    scope: "ingest",
    params: pathParams("key"),
    body: ZGuardRequest,
    prefetch: ({ key }) => prefetchGuardFacts(key),
  },
  async ({ params, body, caller, prefetched }) => {
    const key = checkOperationKey(params.key);
    const answer = await guardAttempt(key, body, caller, prefetched ?? null);
    return reply(guardReplyBody(answer), {
      status: answer.status,
      headers: answer.retryAfter !== undefined ? { "retry-after": String(answer.retryAfter) } : {},
    });
  },
);

const notAllowed = methodNotAllowed("POST");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
