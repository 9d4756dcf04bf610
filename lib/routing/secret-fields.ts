// Where a target keeps its credential, and the `${env:NAME}` reference a routing file may hold there instead.
// Shared by validation (a reference must never be saved as if it were the secret), the document module and the CLI.

/** The field holding each target type's credential (a Slack incoming-webhook URL embeds it in its path). */
export const SECRET_FIELD = { webhook: "secret", pagerduty: "routingKey", slack: "url" } as const;

/** `${env:NAME}`: resolved by `npm run routing` from its own environment before anything is sent. */
export const ENV_REFERENCE = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;

export const hasEnvReference = (value: string): boolean => value.includes("${env:");

/** The credential field of a target as written in a file, or undefined for an unknown type. */
export function secretFieldOf(target: { type?: unknown }): string | undefined {
  const type = target.type;
  return typeof type === "string" && Object.hasOwn(SECRET_FIELD, type)
    ? SECRET_FIELD[type as keyof typeof SECRET_FIELD]
    : undefined;
}
