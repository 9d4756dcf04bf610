import { apiRoute } from "@/lib/server/http/api-route";
import { readJsonBody } from "@/lib/server/http/read-json";
import { createKeyFromDashboard, listKeySummaries, ZCreateKeyBody } from "@/lib/server/keys/manage-keys";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const GET = apiRoute("admin", async () => Response.json({ keys: await listKeySummaries() }));

export const POST = apiRoute("admin", async ({ request }) => {
  const body = await readJsonBody(request, ZCreateKeyBody);
  return Response.json(await createKeyFromDashboard(body), {
    status: 201,
    headers: { "cache-control": "no-store" },
  });
});

const notAllowed = methodNotAllowed("GET", "POST");
export { notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
