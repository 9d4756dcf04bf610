import { apiRoute } from "@/lib/server/http/api-route";
import { scrapeMetrics } from "@/lib/server/metrics/scrape";

export const dynamic = "force-dynamic";

export const GET = apiRoute("read", async () => {
  const { contentType, body } = await scrapeMetrics();
  return new Response(body, { headers: { "content-type": contentType } });
});
