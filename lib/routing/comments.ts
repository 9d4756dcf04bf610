// The free text of a routing config: what people write to explain a silence. It is shown in the dashboard and
// kept in every config version, so the credential guard checks it before anything else (secrets win over shape).

/** Every silence comment of a config as sent (not yet validated), with its JSON path. */
export function configComments(input: unknown): [path: string, comment: string][] {
  if (typeof input !== "object" || input === null) return [];
  const silences = (input as { silences?: unknown }).silences;
  if (!Array.isArray(silences)) return [];
  return silences.flatMap((silence, i): [string, string][] => {
    const comment =
      typeof silence === "object" && silence !== null
        ? (silence as { comment?: unknown }).comment
        : undefined;
    return typeof comment === "string" ? [[`$.silences[${i}].comment`, comment]] : [];
  });
}
