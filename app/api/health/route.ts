import { checkHealth } from "@/lib/server/health";
import { DATABASE_RETRY_AFTER_SECONDS } from "@/lib/server/http/api-error";

export const dynamic = "force-dynamic";

export async function GET() {
  const report = await checkHealth();
  if (report.database === "ok") return Response.json(report);
  return Response.json(report, {
    status: 503,
    headers: { "retry-after": String(DATABASE_RETRY_AFTER_SECONDS) },
  });
}
