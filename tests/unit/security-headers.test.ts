import { describe, expect, it } from "vitest";
import { createNonce, pageContentSecurityPolicy } from "@/lib/server/http/security-headers";
import { parseContentSecurityPolicy, scriptNonce } from "@/tests/support/csp";

describe("a page's Content-Security-Policy", () => {
  it("nonces are 128 random bits, never repeated", () => {
    const nonces = Array.from({ length: 1000 }, createNonce);
    for (const nonce of nonces) expect(Buffer.from(nonce, "base64")).toHaveLength(16);
    expect(new Set(nonces).size).toBe(nonces.length);
  });

  it("lets scripts run only with the nonce; eval only under `npm run dev`, never inline scripts", () => {
    const production = parseContentSecurityPolicy(pageContentSecurityPolicy("bm9uY2U="));
    expect(scriptNonce(production)).toBe("bm9uY2U=");
    expect(production.get("script-src")).toEqual(["'self'", "'nonce-bm9uY2U='", "'strict-dynamic'"]);
    const development = parseContentSecurityPolicy(pageContentSecurityPolicy("bm9uY2U=", true));
    expect(development.get("script-src")).toEqual([
      "'self'",
      "'nonce-bm9uY2U='",
      "'strict-dynamic'",
      "'unsafe-eval'",
    ]);
    for (const policy of [production, development]) {
      expect(policy.get("frame-ancestors")).toEqual(["'none'"]);
      expect(policy.get("object-src")).toEqual(["'none'"]);
      for (const [directive, sources] of policy) {
        if (directive !== "style-src-attr") expect(sources, directive).not.toContain("'unsafe-inline'");
      }
    }
  });
});
