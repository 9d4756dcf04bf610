import { z } from "zod";
import type {
  ConfigVersion,
  ConfigVersionDetail,
  RoutingConfigAnswer,
} from "@/lib/dashboard/routing-api-types";
import { maskSecrets, type TRoutingConfig, ZRoutingConfig } from "@/lib/routing/config";
import type { AuditActor } from "../../audit/audit-actor";
import { listConfigVersionsPage, newestConfigVersionId, readConfigVersion } from "../../db/routing-config";
import { ApiError, notFound } from "../../http/api-error";
import { reply } from "../../http/api-route";
import { saveRoutingConfig } from "../routing-config";

// The routing config's history: every saved version can be read (secrets masked), paged through and restored.

const ID_PATTERN = /^\d{1,18}$/;

export const ZVersionsQuery = z.object({
  before: z.string().regex(ID_PATTERN, "a version number").optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

/** A version number from the URL: anything but digits is 400 `invalid_path` (no version could ever have it). */
function versionParam(value: string): bigint {
  if (!ID_PATTERN.test(value))
    throw new ApiError(400, "invalid_path", "the URL path is invalid", [
      { path: "$.path.id", code: "invalid_version", message: "a config version is a number" },
    ]);
  return BigInt(value);
}

type VersionRow = { id: bigint; createdAt: Date; createdBy: string; comment: string | null };

const versionView = (row: VersionRow): ConfigVersion => ({
  version: row.id.toString(),
  createdAt: row.createdAt.toISOString(),
  createdBy: row.createdBy,
  comment: row.comment,
});

/** The history, newest first, a page at a time (`before` = the last version of the previous page). */
export async function listVersions(
  query: z.infer<typeof ZVersionsQuery>,
): Promise<{ versions: ConfigVersion[]; nextCursor: string | null }> {
  const rows = await listConfigVersionsPage({
    before: query.before === undefined ? null : BigInt(query.before),
    limit: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  return {
    versions: page.map(versionView),
    nextCursor: rows.length > query.limit ? (page.at(-1)?.id.toString() ?? null) : null,
  };
}

/** A stored version's config with its real secrets, as it was validated when saved. */
async function storedVersion(id: bigint): Promise<VersionRow & { config: TRoutingConfig }> {
  const row = await readConfigVersion(id);
  if (!row) throw notFound(`routing config version ${id}`);
  const parsed = ZRoutingConfig.safeParse(row.config);
  // Versions are validated before they are stored; one that no longer parses is reported, never half-shown.
  if (!parsed.success)
    throw new ApiError(409, "version_unreadable", `routing config version ${id} no longer parses`, [
      { path: "$.path.id", code: "version_unreadable", message: "this version cannot be read any more" },
    ]);
  return { ...row, config: parsed.data };
}

/** GET a version: its config with secrets masked (tokens name that version's own targets). */
export async function getVersion(rawId: string): Promise<ConfigVersionDetail> {
  const id = versionParam(rawId);
  const [version, newest] = await Promise.all([storedVersion(id), newestConfigVersionId()]);
  return { ...versionView(version), isCurrent: newest === id, config: maskSecrets(version.config) };
}

function parseIfMatch(header: string | null): bigint | null | undefined {
  if (header === null) return undefined;
  const value = header.trim().replace(/^W\//, "").replace(/^"|"$/g, "");
  if (value === "default") return null;
  if (ID_PATTERN.test(value)) return BigInt(value);
  throw new ApiError(400, "invalid_if_match", 'If-Match must be "<version>" or "default"', [
    { path: "$.headers.if-match", code: "invalid_if_match", message: "not a config version" },
  ]);
}

/**
 * Restore = save the stored version's config (with its real secrets: a masked copy would resolve its tokens against
 * the current targets, which may have changed or gone) as a new version, validated under today's rules. `If-Match`
 * guards against restoring over a change made since the page was read.
 */
export async function restoreVersion(input: { rawId: string; ifMatch: string | null; actor: AuditActor }) {
  const id = versionParam(input.rawId);
  const baseVersion = parseIfMatch(input.ifMatch);
  const version = await storedVersion(id);
  const saved = await saveRoutingConfig({
    config: version.config,
    actor: input.actor,
    audit: { action: "routing.config_restore", restoredFrom: id },
    comment: `Restore version ${id}`,
    ...(baseVersion !== undefined ? { baseVersion } : {}),
  });
  const savedVersion = saved.versionId.toString();
  return reply<RoutingConfigAnswer>(
    { version: savedVersion, isDefault: false, config: maskSecrets(saved.config) },
    { status: 201, headers: { etag: `"${savedVersion}"` } },
  );
}
