// A check's URL template: {operationKey}, {effect.receipt} and {labels.<name>} filled from the chain's current record,
// each value URL-encoded so a key or receipt can never add a path segment, a query or another host. Pure.

export type TemplateValues = {
  operationKey: string | null;
  receipt: string | null;
  labels: Readonly<Record<string, string>>;
};

const PLACEHOLDER = /\{([^{}]*)\}/g;
const LABEL = /^labels\.([A-Za-z0-9_.-]{1,64})$/;

/** What is wrong with a template (unknown placeholders, a placeholder in the host), for validation. */
export function templateProblems(template: string): string[] {
  const problems: string[] = [];
  for (const [, name = ""] of template.matchAll(PLACEHOLDER)) {
    if (name !== "operationKey" && name !== "effect.receipt" && !LABEL.test(name))
      problems.push(
        `{${name}} is not a placeholder: use {operationKey}, {effect.receipt} or {labels.<name>}`,
      );
  }
  const withoutValues = template.replace(PLACEHOLDER, "x");
  let url: URL | undefined;
  try {
    url = new URL(withoutValues);
  } catch {
    problems.push("not a URL");
  }
  if (url && url.protocol !== "https:" && url.protocol !== "http:") problems.push("an http(s) URL");
  // The host is the admin's, never the agent's: a placeholder may only fill the path or the query.
  const host = template.replace(/^[a-z]+:\/\//i, "").split(/[/?#]/)[0] ?? "";
  if (PLACEHOLDER.test(host)) problems.push("placeholders may fill the path and query, not the host");
  PLACEHOLDER.lastIndex = 0;
  return problems;
}

/** The URL for one chain, or the name of the value it lacks (the check's answer is then unknown). */
export function renderTemplate(
  template: string,
  values: TemplateValues,
): { url: string } | { missing: string } {
  let missing: string | null = null;
  const url = template.replace(PLACEHOLDER, (_whole, name: string) => {
    const value =
      name === "operationKey"
        ? values.operationKey
        : name === "effect.receipt"
          ? values.receipt
          : (values.labels[LABEL.exec(name)?.[1] ?? ""] ?? null);
    if (value === null || value === "") {
      missing ??= name;
      return "";
    }
    return encodeURIComponent(value);
  });
  return missing ? { missing } : { url };
}
