import type { AuditPage } from "@/lib/audit/audit-view";
import { readAuditLog } from "@/lib/server/audit/audit-log";
import { AUDIT_REPEATABLE, ZAuditQuery } from "@/lib/server/audit/audit-query";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

// Admins (signed in) and `admin` keys: the log names users and shows configs (secrets masked).
export const GET = apiRoute(
  { scope: "audit", query: ZAuditQuery, repeatable: AUDIT_REPEATABLE },
  ({ query }): Promise<AuditPage> => readAuditLog(query),
);

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
