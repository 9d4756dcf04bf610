import { apiRoute } from "@/lib/server/http/api-route";
import { scrapeMetrics } from "@/lib/server/metrics/scrape";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const GET = apiRoute("read", async () => {
  const { contentType, body } = await scrapeMetrics();
  return new Response(body, { headers: { "content-type": contentType } });
});

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
