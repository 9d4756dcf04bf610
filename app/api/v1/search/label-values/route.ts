import { z } from "zod";
import { listLabelValues } from "@/lib/server/db/label-values";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

const ZLabelValuesQuery = z
  .object({
    key: z.string().regex(/^[a-z][a-z0-9_.-]{0,62}$/, "expected a lower-case label key"),
    prefix: z.string().max(256).default(""),
  })
  .strict();

/** Stored values of one label key, for the search box's `label:key:` suggestions (bounded, newest chains). */
export const GET = apiRoute(
  { scope: "read", query: ZLabelValuesQuery },
  async ({ query }): Promise<{ values: string[] }> => ({
    values: await listLabelValues(query.key, query.prefix),
  }),
);

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
