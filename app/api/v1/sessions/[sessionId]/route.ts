import type { SessionView } from "@/lib/dashboard/api-types";
import { getSessionChains } from "@/lib/server/db/chains";
import { readSessionCallTimes } from "@/lib/server/db/session-timeline";
import { notFound } from "@/lib/server/http/api-error";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { pathParams } from "@/lib/server/http/path-params";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  { scope: "read", params: pathParams("sessionId") },
  async ({ params }): Promise<SessionView> => {
    const [session, calls] = await Promise.all([
      getSessionChains(params.sessionId),
      readSessionCallTimes(params.sessionId),
    ]);
    if (!session) throw notFound("session");
    return { ...session, calls };
  },
);

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
