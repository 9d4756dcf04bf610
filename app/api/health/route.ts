import { checkHealth } from "@/lib/server/health";

export const dynamic = "force-dynamic";

export async function GET() {
  const report = await checkHealth();
  return Response.json(report, { status: report.database === "ok" ? 200 : 503 });
}
