import { getConfigVersions } from "@/lib/server/alerts/api/config-api";
import { apiRoute } from "@/lib/server/http/api-route";

export const dynamic = "force-dynamic";

export const GET = apiRoute("read", () => getConfigVersions());
