import type { QueuePage } from "@/lib/dashboard/api-types";
import { countQueueByStatus, listQueueChains } from "@/lib/server/db/queue-chains";
import { ApiError } from "@/lib/server/http/api-error";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { pathParams } from "@/lib/server/http/path-params";
import { assigneeFilterId } from "@/lib/server/team/assignee-check";
import { ZQueueListQuery, ZQueueSlug } from "@/lib/triage/schemas";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  { scope: "read", params: pathParams("queue"), query: ZQueueListQuery },
  async ({ params, query, caller }): Promise<QueuePage> => {
    const queue = ZQueueSlug.safeParse(params.queue);
    if (!queue.success) {
      throw new ApiError(404, "not_found", "unknown queue", [
        { path: "$.params.queue", code: "unknown_queue", message: "false-success or effect-unknown" },
      ]);
    }
    const [page, counts] = await Promise.all([
      listQueueChains({
        queue: queue.data,
        ...query,
        assigneeUserId: assigneeFilterId(query.assignee, caller),
      }),
      countQueueByStatus(queue.data),
    ]);
    return { queue: queue.data, ...page, counts };
  },
);

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
