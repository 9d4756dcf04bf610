// The destination checks' configuration: validated, versioned and audited like routing's. Secrets are never in it
// (headers and connection strings are names of RECEIPT_CHECK_* variables), so it reads back as saved.
import { EMPTY_CHECKS, type TChecksConfig, ZChecksConfig } from "@/lib/checks/config";
import type { ChecksConfigAnswer } from "@/lib/dashboard/api-types";
import type { Prisma } from "@/lib/generated/prisma/client";
import { appendAuditEvent } from "../db/audit-events";
import {
  insertChecksVersion,
  lockChecksVersions,
  newestChecksVersionId,
  readNewestChecksVersion,
} from "../db/checks-config";
import { getPrisma } from "../db/client";
import type { AuditActor } from "../audit/audit-actor";
import { ApiError } from "../http/api-error";
import { rejectSecrets } from "../http/reject-secrets";
import { jsonPath } from "@/lib/routing/validate";

export async function currentChecks(): Promise<TChecksConfig> {
  const row = await readNewestChecksVersion();
  const parsed = row ? ZChecksConfig.safeParse(row.config) : null;
  // Only validated configs are saved; one that no longer parses (a rule tightened since) checks nothing.
  return parsed?.success ? parsed.data : EMPTY_CHECKS;
}

export async function getChecksConfig(): Promise<ChecksConfigAnswer> {
  const row = await readNewestChecksVersion();
  return { version: row ? row.id.toString() : "none", config: row ? row.config : EMPTY_CHECKS };
}

/** Validates and saves a new version: 422 `invalid_checks_config` with every problem's JSON path, nothing saved. */
export async function saveChecksConfig(input: {
  config: unknown;
  actor: AuditActor;
  comment: string | null;
  /** `If-Match`: the version the change was made against ("none" before the first); another is a 409. */
  ifMatch?: string | null;
}): Promise<ChecksConfigAnswer> {
  const parsed = ZChecksConfig.safeParse(input.config);
  if (!parsed.success) {
    throw new ApiError(
      422,
      "invalid_checks_config",
      "the checks config is invalid; nothing was saved",
      parsed.error.issues.map((issue) => ({
        path: jsonPath(issue.path),
        code: issue.code,
        message: issue.message,
      })),
    );
  }
  // Secrets belong in RECEIPT_CHECK_* variables: a token written into a URL, a query or the comment is refused.
  rejectSecrets([
    ["$.query.comment", input.comment],
    ...parsed.data.checks.flatMap((check, index): [string, string | undefined][] => [
      [`$.checks[${index}].http.url`, check.http?.url],
      [`$.checks[${index}].sql.query`, check.sql?.query],
    ]),
  ]);
  const config = parsed.data as unknown as Prisma.InputJsonValue;
  const id = await getPrisma().$transaction(async (tx) => {
    await lockChecksVersions(tx);
    const previous = await newestChecksVersionId(tx);
    const found = previous?.toString() ?? "none";
    const expected = input.ifMatch?.trim().replace(/^W\//, "").replace(/^"|"$/g, "");
    if (expected && expected !== found) {
      throw new ApiError(
        409,
        "config_changed",
        "the checks config changed since it was read; reload and retry",
        [{ path: "$.headers.if-match", code: "config_changed", message: `current version is ${found}` }],
      );
    }
    const saved = await insertChecksVersion(tx, {
      config,
      createdBy: input.actor.actor,
      comment: input.comment,
    });
    await appendAuditEvent(tx, {
      ...input.actor,
      action: "checks.config_apply",
      targetType: "checks_config",
      targetId: saved.toString(),
      before: { version: previous?.toString() ?? "none" },
      after: { version: saved.toString(), comment: input.comment, config: parsed.data },
    });
    return saved;
  });
  return { version: id.toString(), config: parsed.data };
}
