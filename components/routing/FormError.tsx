"use client";

import { ApiClientError } from "../api/http";

/** A refused change, with each problem's JSON path (the same paths an imported file would get). */
export function FormError({ error }: { error: unknown }) {
  if (!error) return null;
  const issues = error instanceof ApiClientError ? error.issues : [];
  return (
    <div className="field-error" role="alert">
      <p style={{ margin: 0 }}>{error instanceof Error ? error.message : "The change was refused."}</p>
      {issues.length > 0 && (
        <ul style={{ margin: "0.25rem 0 0", paddingLeft: "1.1rem" }}>
          {issues.map((issue) => (
            <li key={`${issue.path}:${issue.code}`}>
              <code>{issue.path}</code>: {issue.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
