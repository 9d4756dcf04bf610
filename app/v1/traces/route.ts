import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { ingestTraces } from "@/lib/server/otlp/ingest-traces";
import { asOtlpError, exportResponse } from "@/lib/server/otlp/otlp-response";
import { encodingOf } from "@/lib/server/otlp/read-export";

export const dynamic = "force-dynamic";

// OTLP/HTTP's trace endpoint (the path exporters append to their base URL): protobuf or JSON, gzip or not, up to
// 5 MiB inflated, authenticated with an ingest key in `Authorization: Bearer`. Errors are google.rpc.Status bodies.
const handle = apiRoute({ scope: "ingest" }, async ({ request }) => {
  const result = await ingestTraces(request);
  return exportResponse(encodingOf(request) ?? "json", result.rejected);
});

export async function POST(request: Request, context: { params: Promise<Record<string, string>> }) {
  return asOtlpError(request, await handle(request, context));
}

const notAllowed = methodNotAllowed("POST");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
