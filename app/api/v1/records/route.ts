import { apiRoute } from "@/lib/server/http/api-route";
import { ingestRequest } from "@/lib/server/ingest/ingest-batch";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const POST = apiRoute("ingest", async ({ request }) => Response.json(await ingestRequest(request)));

const notAllowed = methodNotAllowed("POST");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
