import type { ProblemsPage } from "@/lib/problems/types";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { listProblems } from "@/lib/server/problems/problems-service";
import { assigneeFilterId } from "@/lib/server/team/assignee-check";
import { ZProblemsQuery } from "@/lib/server/reading/problems-query";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  { scope: "read", query: ZProblemsQuery },
  async ({ query, caller }): Promise<ProblemsPage> =>
    listProblems(query, assigneeFilterId(query.assignee, caller)),
);

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
