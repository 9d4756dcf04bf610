/** A Content-Security-Policy header as directive name → its sources, e.g. `script-src` → [`'self'`, `'nonce-…'`]. */
export function parseContentSecurityPolicy(header: string): Map<string, string[]> {
  const directives = new Map<string, string[]>();
  for (const directive of header.split(";")) {
    const [name, ...sources] = directive.trim().split(/\s+/);
    if (name) directives.set(name.toLowerCase(), sources);
  }
  return directives;
}

/** The nonce a policy lets scripts run with (`'nonce-abc'` in script-src → `abc`), or undefined. */
export function scriptNonce(policy: Map<string, string[]>): string | undefined {
  for (const source of policy.get("script-src") ?? []) {
    const match = /^'nonce-([A-Za-z0-9+/_-]+={0,2})'$/.exec(source);
    if (match) return match[1];
  }
  return undefined;
}
