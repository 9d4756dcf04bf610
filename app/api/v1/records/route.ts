import type { IngestAnswer } from "@/lib/dashboard/api-types";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { ingestRequest } from "@/lib/server/ingest/ingest-batch";

export const dynamic = "force-dynamic";

// The body is a batch of JSON or NDJSON records up to 5 MiB, read by ingestRequest itself (read-batch.ts).
export const POST = apiRoute(
  { scope: "ingest" },
  async ({ request }): Promise<IngestAnswer> => ingestRequest(request),
);

const notAllowed = methodNotAllowed("POST");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
