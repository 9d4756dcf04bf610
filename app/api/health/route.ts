import { checkHealth } from "@/lib/server/health";
import { DATABASE_RETRY_AFTER_SECONDS } from "@/lib/server/http/api-error";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function GET() {
  const report = await checkHealth();
  if (report.database === "ok") return Response.json(report);
  return Response.json(report, {
    status: 503,
    headers: { "retry-after": String(DATABASE_RETRY_AFTER_SECONDS) },
  });
}

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
