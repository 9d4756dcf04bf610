"use client";

import { humanPath } from "@/lib/dashboard/human-path";
import { ApiClientError } from "../api/http";

/** A refused save because someone else saved first: the page has reloaded the config in force. */
const CONFLICT_TEXT =
  "The routing config was changed elsewhere since this page loaded it. The page now shows the newest version: " +
  "check it and make your change again.";

/**
 * A refused change, each problem said with where it is; `locate` adds its line and column when the change came from a
 * text (an imported routing document).
 */
export function FormError({
  error,
  locate,
}: {
  error: unknown;
  locate?: (path: string) => { line: number; column: number } | undefined;
}) {
  if (!error) return null;
  const issues = error instanceof ApiClientError ? error.issues : [];
  const conflict = error instanceof ApiClientError && error.code === "config_changed";
  return (
    <div className="field-error" role="alert" style={{ overflowWrap: "anywhere" }}>
      <p style={{ margin: 0 }}>
        {conflict ? CONFLICT_TEXT : error instanceof Error ? error.message : "The change was refused."}
      </p>
      {issues.length > 0 && !conflict && (
        <ul style={{ margin: "0.25rem 0 0", paddingLeft: "1.1rem" }}>
          {issues.map((issue) => (
            <li key={`${issue.path}:${issue.code}`} title={issue.path}>
              {humanPath(issue.path)}
              {lineAndColumn(locate?.(issue.path))}: {issue.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

const lineAndColumn = (at: { line: number; column: number } | undefined) =>
  at ? ` (line ${at.line}, column ${at.column})` : "";

/** The issues at `path` or under it (`$.route.routes[2].matchers` also takes `…matchers[0]`). */
export function issuesUnder(error: unknown, path: string) {
  if (!(error instanceof ApiClientError)) return [];
  return error.issues.filter(
    (issue) => issue.path === path || issue.path.startsWith(`${path}[`) || issue.path.startsWith(`${path}.`),
  );
}

/** The server's problems with one form field, shown next to it (`id` for aria-describedby). */
export function FieldIssues({ id, error, path }: { id: string; error: unknown; path: string }) {
  const issues = issuesUnder(error, path);
  if (issues.length === 0) return null;
  return (
    <p id={id} className="field-error" style={{ margin: "0.2rem 0 0", overflowWrap: "anywhere" }}>
      {issues.map((issue) => issue.message).join("; ")}
    </p>
  );
}
