import { resourceOfPath } from "@/lib/dashboard/page-resource";
import { chainExists, sessionExists } from "../db/chains";

/**
 * Whether a page path names a chain or session that does not exist (one index probe). The (dashboard) layout asks
 * before its children stream behind loading.tsx: a notFound() thrown once the first byte is out shows the message
 * but cannot change the status from 200.
 */
export async function namesMissingResource(path: string): Promise<boolean> {
  const resource = resourceOfPath(path);
  if (!resource) return false;
  return !(await (resource.kind === "chain" ? chainExists(resource.id) : sessionExists(resource.id)));
}
