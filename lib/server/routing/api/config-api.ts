import { z } from "zod";
import type { ConfigVersion, RoutingConfigAnswer } from "@/lib/dashboard/routing-api-types";
import { configComments } from "@/lib/routing/comments";
import { maskSecrets } from "@/lib/routing/config";
import { printProposedDocument, printRoutingDocument } from "@/lib/routing/document";
import { loadEditedConfig } from "@/lib/routing/secrets";
import type { AuditActor } from "../../audit/audit-actor";
import { listConfigVersions } from "../../db/routing-config";
import { ApiError } from "../../http/api-error";
import { reply } from "../../http/api-route";
import { rejectSecrets } from "../../http/reject-secrets";
import { configErrors, currentRouting, refusedTargets, saveRoutingConfig } from "../routing-config";
import { type ConfigBody, readConfigBody, wantsYaml, withLocations } from "./config-body";

/**
 * GET's query: `?download=1` answers the bare config as a file, `?format=yaml` (or `Accept: application/yaml`) as a
 * YAML document (other parameters are ignored, as they always were).
 */
export const ZGetConfigQuery = z.object({ download: z.string().optional(), format: z.string().optional() });
/** PUT's query: the version's comment (other parameters are ignored, as they always were). */
export const ZPutConfigQuery = z.object({ comment: z.string().optional() });

const versionText = (id: bigint | null) => (id === null ? "default" : id.toString());

const YAML_CONTENT_TYPE = "application/yaml; charset=utf-8";

/**
 * GET config: the current version, secrets masked. `?download=1` answers the bare config as a file to keep in git;
 * asked for YAML, the config is the routing document (lib/routing/document.ts) and the version is in its ETag.
 */
export async function getRoutingConfig(query: z.infer<typeof ZGetConfigQuery>, request: Request) {
  const current = await currentRouting();
  const config = maskSecrets(current.config);
  const version = versionText(current.versionId);
  if (wantsYaml(request)) {
    const download = query.download === "1";
    return new Response(printRoutingDocument(current.config, { version }), {
      headers: {
        "content-type": YAML_CONTENT_TYPE,
        etag: `"${version}"`,
        ...(download
          ? { "content-disposition": `attachment; filename="receipt-routing-${version}.yaml"` }
          : {}),
      },
    });
  }
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
 * PUT config: the body is the config itself, as JSON or as a YAML routing document (an exported file imports
 * unchanged). `If-Match: "<version>"` guards against overwriting a change made since it was read (409
 * `config_changed`); `?comment=` describes the version. Comments holding a credential are refused (422
 * `secret_detected`) before anything else is checked. A YAML body's problems name their line and column.
 */
export async function putRoutingConfig(input: {
  request: Request;
  query: z.infer<typeof ZPutConfigQuery>;
  actor: AuditActor;
}) {
  const { request, actor } = input;
  const ifMatch = request.headers.get("if-match");
  const body = await readConfigBody(request);
  const rawComment = input.query.comment ?? null;
  rejectSecrets([["$.query.comment", rawComment], ...configComments(body.value)]);
  const comment = rawComment?.slice(0, 500) || null;
  const saved = await saveRoutingConfig({
    config: body.value,
    actor,
    audit: { action: "routing.config_apply" },
    comment,
    ...(ifMatch ? { baseVersion: parseIfMatch(ifMatch) } : {}),
  }).catch((error: unknown) => {
    throw withLocations(error, body);
  });
  const version = versionText(saved.versionId);
  if (wantsYaml(request))
    return new Response(printRoutingDocument(saved.config, { version }), {
      headers: { "content-type": YAML_CONTENT_TYPE, etag: `"${version}"` },
    });
  return reply<RoutingConfigAnswer>(
    { version, isDefault: false, config: maskSecrets(saved.config) },
    { headers: { etag: `"${version}"` } },
  );
}

export type ConfigCheckAnswer = {
  /** The version the check compared with: send it as `If-Match` to apply exactly this change. */
  version: string;
  /** Whether applying would change anything (a secret that differs from the stored one counts). */
  changed: boolean;
  /** The current config and the checked one as routing documents, secrets masked (changed ones marked). */
  current: string;
  proposed: string;
};

/**
 * POST config/check: PUT's validation without saving (a dry run for CI and `npm run routing -- diff`): the same
 * 400/415/422 answers, or both documents to compare. Masked secrets are resolved against the current version.
 */
export async function checkRoutingConfig(request: Request): Promise<ConfigCheckAnswer> {
  const body: ConfigBody = await readConfigBody(request);
  rejectSecrets(configComments(body.value));
  const current = await currentRouting();
  const loaded = loadEditedConfig(body.value, current.config);
  if (!loaded.ok) throw withLocations(configErrors(loaded.errors), body);
  const refused = refusedTargets(loaded.config);
  if (refused.length > 0) throw withLocations(configErrors(refused), body);
  const currentText = printRoutingDocument(current.config);
  const proposed = printProposedDocument(loaded.config, current.config);
  return {
    version: versionText(current.versionId),
    changed: proposed !== currentText,
    current: currentText,
    proposed,
  };
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
