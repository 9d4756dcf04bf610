import { z } from "zod";
import type { ConfigVersion, RoutingConfigAnswer } from "@/lib/dashboard/api-types";
import { configComments } from "@/lib/routing/comments";
import { maskSecrets } from "@/lib/routing/config";
import { listConfigVersions } from "../../db/routing-config";
import { ApiError } from "../../http/api-error";
import { reply } from "../../http/api-route";
import { rejectSecrets } from "../../http/reject-secrets";
import { currentRouting, saveRoutingConfig } from "../routing-config";

/** GET's query: `?download=1` answers the bare config as a file (other parameters are ignored, as they always were). */
export const ZGetConfigQuery = z.object({ download: z.string().optional() });
/** PUT's query: the version's comment (other parameters are ignored, as they always were). */
export const ZPutConfigQuery = z.object({ comment: z.string().optional() });
/** PUT's body is the config itself, checked by the routing config's own validation (every problem at once). */
export const ZConfigBody = z.unknown();

const versionText = (id: bigint | null) => (id === null ? "default" : id.toString());

/** GET config: the current version, secrets masked. `?download=1` answers the bare config as a file to keep in git. */
export async function getRoutingConfig(query: z.infer<typeof ZGetConfigQuery>) {
  const current = await currentRouting();
  const config = maskSecrets(current.config);
  const version = versionText(current.versionId);
  if (query.download === "1") {
    // A file, not a JSON answer: the one Response this API builds itself.
    return new Response(`${JSON.stringify(config, null, 2)}\n`, {
      headers: {
        "content-type": "application/json",
        "content-disposition": `attachment; filename="receipt-routing-${version}.json"`,
        etag: `"${version}"`,
      },
    });
  }
  return reply<RoutingConfigAnswer>(
    { version, isDefault: current.versionId === null, config },
    { headers: { etag: `"${version}"` } },
  );
}

/**
 * PUT config: the body is the config itself (an exported file imports unchanged). `If-Match: "<version>"` guards
 * against overwriting a change made since it was read; `?comment=` describes the version. Comments holding a
 * credential are refused (422 `secret_detected`) before anything else is checked.
 */
export async function putRoutingConfig(input: {
  body: unknown;
  query: z.infer<typeof ZPutConfigQuery>;
  ifMatch: string | null;
  actor: string;
}) {
  const { body, ifMatch, actor } = input;
  const rawComment = input.query.comment ?? null;
  rejectSecrets([["$.query.comment", rawComment], ...configComments(body)]);
  const comment = rawComment?.slice(0, 500) || null;
  const saved = await saveRoutingConfig({
    config: body,
    actor,
    comment,
    ...(ifMatch ? { baseVersion: parseIfMatch(ifMatch) } : {}),
  });
  const version = versionText(saved.versionId);
  return reply<RoutingConfigAnswer>(
    { version, isDefault: false, config: maskSecrets(saved.config) },
    { headers: { etag: `"${version}"` } },
  );
}

function parseIfMatch(header: string): bigint | null {
  const value = header.trim().replace(/^W\//, "").replace(/^"|"$/g, "");
  if (value === "default") return null;
  if (/^\d{1,18}$/.test(value)) return BigInt(value);
  throw new ApiError(400, "invalid_if_match", 'If-Match must be "<version>" or "default"', [
    { path: "$.headers.if-match", code: "invalid_if_match", message: "not a config version" },
  ]);
}

export async function getConfigVersions(): Promise<{ versions: ConfigVersion[] }> {
  const versions = await listConfigVersions(100);
  return {
    versions: versions.map((v) => ({
      version: v.id.toString(),
      createdAt: v.createdAt.toISOString(),
      createdBy: v.createdBy,
      comment: v.comment,
    })),
  };
}
