import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { scrapeMetrics } from "@/lib/server/metrics/scrape";

export const dynamic = "force-dynamic";

// Prometheus's text format, not JSON: the one route that answers a Response of its own.
export const GET = apiRoute({ scope: "read" }, async () => {
  const { contentType, body } = await scrapeMetrics();
  return new Response(body, { headers: { "content-type": contentType } });
});

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
