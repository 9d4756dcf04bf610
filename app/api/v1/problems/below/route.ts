import type { ProblemsBelow } from "@/lib/problems/lifecycle";
import { ZProblemsBelowQuery } from "@/lib/problems/schemas";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { problemsBelow } from "@/lib/server/problems/lifecycle-service";

export const dynamic = "force-dynamic";

// What a resolve with cascade would also resolve below these problems (`?key=…&key=…`): the confirmation's numbers.
export const GET = apiRoute(
  { scope: "read", query: ZProblemsBelowQuery, repeatable: ["key"] },
  async ({ query }): Promise<ProblemsBelow> => problemsBelow(query.key),
);

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
