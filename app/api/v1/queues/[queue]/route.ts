import { countQueueByStatus, listQueueChains } from "@/lib/server/db/queue-chains";
import { ApiError } from "@/lib/server/http/api-error";
import { apiRoute } from "@/lib/server/http/api-route";
import { parseQuery } from "@/lib/server/reading/chain-query";
import { ZQueueListQuery, ZQueueSlug } from "@/lib/triage/schemas";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ queue: string }>("read", async ({ request, params }) => {
  const queue = ZQueueSlug.safeParse(params.queue);
  if (!queue.success) {
    throw new ApiError(404, "not_found", "unknown queue", [
      { path: "$.params.queue", code: "unknown_queue", message: "false-success or effect-unknown" },
    ]);
  }
  const query = parseQuery(ZQueueListQuery, new URL(request.url));
  const [page, counts] = await Promise.all([
    listQueueChains({ queue: queue.data, ...query }),
    countQueueByStatus(queue.data),
  ]);
  return Response.json({ queue: queue.data, ...page, counts });
});

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
