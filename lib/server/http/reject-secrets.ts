import { matchSecretPattern } from "@/lib/contract";
import { ApiError, type ApiIssue } from "./api-error";

/** A piece of free text and the JSON path it came from (`$.note`, `$.silences[2].comment`, `$.query.comment`). */
export type FreeText = readonly [path: string, value: string | null | undefined];

/**
 * Notes, comments, owners and receipts are typed by people and land in the audit trail, the dashboard and alert
 * payloads: the credential guard of records (contract §5) applies to them too. The answer names the path and the
 * pattern, never the value, and nothing is stored.
 */
export function rejectSecrets(fields: readonly FreeText[]): void {
  const issues: ApiIssue[] = [];
  for (const [path, value] of fields) {
    const pattern = value ? matchSecretPattern(value) : undefined;
    if (pattern)
      issues.push({ path, code: "secret_detected", message: `looks like a credential (${pattern})` });
  }
  if (issues.length > 0) {
    throw new ApiError(422, "secret_detected", "a field contains a credential; nothing was stored", issues);
  }
}
