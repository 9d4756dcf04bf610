import { apiRoute } from "@/lib/server/http/api-route";
import { ingestRequest } from "@/lib/server/ingest/ingest-batch";

export const dynamic = "force-dynamic";

export const POST = apiRoute("ingest", async ({ request }) => Response.json(await ingestRequest(request)));
