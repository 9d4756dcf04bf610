import { describe, expect, it } from "vitest";
import {
  oidcErrorMessage,
  profileFromClaims,
  roleFromClaim,
  uniqueUsername,
  usernameFrom,
} from "@/lib/auth/oidc-identity";
import { openOidcFlow, sealOidcFlow } from "@/lib/server/auth/oidc-flow-cookie";
import type { OidcSettings } from "@/lib/server/auth/oidc-settings";
import { EnvError, parseEnv } from "@/lib/server/env";

const USERNAME_RULE = /^[A-Za-z0-9._-]{1,64}$/;

describe("a first OpenID Connect sign-in's username and role", () => {
  it("takes preferred_username, else the email's local part, else sub, each made a valid username", () => {
    expect(
      profileFromClaims({ sub: "s1", preferred_username: "ana.b", email: "x@y.z" }, "r").usernameBase,
    ).toBe("ana.b");
    expect(profileFromClaims({ sub: "s1", email: "José.Núñez@example.test" }, "r").usernameBase).toBe(
      "Jose.Nunez",
    );
    expect(profileFromClaims({ sub: "auth0|12345" }, "r").usernameBase).toBe("auth0-12345");
    expect(profileFromClaims({ sub: "🙂", preferred_username: "  " }, "r").usernameBase).toBe("user");
    for (const value of ["<script>alert(1)</script>", "a".repeat(300), "../..", "名前", "-x-"]) {
      const made = usernameFrom(value);
      if (made !== null) expect(made).toMatch(USERNAME_RULE);
    }
  });

  it("a taken name gets -2, -3…, still within 64 characters", () => {
    expect(uniqueUsername("ana", new Set(["ana", "ana-2"]))).toBe("ana-3");
    const long = "x".repeat(64);
    const made = uniqueUsername(long, new Set([long]));
    expect(made).toMatch(USERNAME_RULE);
    expect(made.endsWith("-2")).toBe(true);
  });

  it("a name that differs only in case from a taken one is taken (the set holds lower-cased names)", () => {
    expect(uniqueUsername("Ana", new Set(["ana"]))).toBe("Ana-2");
    expect(uniqueUsername("ANA", new Set(["ana", "ana-2"]))).toBe("ANA-3");
  });

  it("a role only when the claim names one; anything else (a list, a typo, nothing) is viewer", () => {
    expect(roleFromClaim("responder")).toBe("responder");
    expect(roleFromClaim(" Admin ")).toBe("admin");
    for (const other of ["superuser", ["admin"], 3, null, undefined, ""])
      expect(roleFromClaim(other)).toBe("viewer");
    expect(profileFromClaims({ sub: "s", team_role: "admin" }, "team_role").role).toBe("admin");
  });

  it("the sign-in page explains known error codes only", () => {
    expect(oidcErrorMessage("oidc_unavailable")).toMatch(/could not be reached/);
    expect(oidcErrorMessage("<b>hi</b>")).toBeNull();
    expect(oidcErrorMessage("toString")).toBeNull();
  });
});

describe("the flow cookie", () => {
  const settings = { clientSecret: "secret-one" } as OidcSettings;
  const flow = { state: "s", nonce: "n", codeVerifier: "v", next: "/chains", expiresAt: Date.now() + 60_000 };
  const cookieHeader = (setCookie: string) => setCookie.split(";")[0] ?? "";

  it("opens what this server sealed, HttpOnly and SameSite=Lax on the callback's path", () => {
    const sealed = sealOidcFlow(flow, settings, true);
    expect(sealed).toMatch(/; Path=\/api\/auth\/oidc; HttpOnly; SameSite=Lax; Max-Age=600; Secure$/);
    expect(openOidcFlow(`other=1; ${cookieHeader(sealed)}`, settings)).toEqual(flow);
  });

  it("refuses a changed payload, another secret's signature, and an expired flow", () => {
    const sealed = cookieHeader(sealOidcFlow(flow, settings, false));
    const [name, value = ""] = sealed.split("=");
    const [payload = "", signature] = value.split(".");
    const changed = Buffer.from(JSON.stringify({ ...flow, next: "/evil" })).toString("base64url");
    expect(openOidcFlow(`${name}=${changed}.${signature}`, settings)).toBeNull();
    expect(openOidcFlow(sealed, { clientSecret: "secret-two" } as OidcSettings)).toBeNull();
    expect(openOidcFlow(`${name}=${payload}`, settings)).toBeNull();
    expect(openOidcFlow(sealed, settings, flow.expiresAt + 1)).toBeNull();
  });
});

describe("OpenID Connect settings", () => {
  const trio = {
    RECEIPT_OIDC_ISSUER: "https://id.example.test/realms/ops",
    RECEIPT_OIDC_CLIENT_ID: "receipt",
    RECEIPT_OIDC_CLIENT_SECRET: "s3cret",
  };

  it("all three or none; the defaults for the rest", () => {
    const none = parseEnv({});
    expect(none.RECEIPT_OIDC_ISSUER).toBeUndefined();
    const all = parseEnv(trio);
    expect([all.RECEIPT_OIDC_NAME, all.RECEIPT_OIDC_ROLE_CLAIM, all.RECEIPT_OIDC_SCOPES]).toEqual([
      "single sign-on",
      "receipt_role",
      "openid profile email",
    ]);
    expect(() => parseEnv({ ...trio, RECEIPT_OIDC_CLIENT_SECRET: "" })).toThrow(
      /RECEIPT_OIDC_CLIENT_SECRET: OpenID Connect sign-in needs .* together: set all three or none/,
    );
  });

  it("http only for a provider on this host; scopes must include openid", () => {
    expect(parseEnv({ ...trio, RECEIPT_OIDC_ISSUER: "http://127.0.0.1:9000" }).RECEIPT_OIDC_ISSUER).toBe(
      "http://127.0.0.1:9000",
    );
    expect(() => parseEnv({ ...trio, RECEIPT_OIDC_ISSUER: "http://id.example.test" })).toThrow(EnvError);
    expect(() => parseEnv({ ...trio, RECEIPT_OIDC_ISSUER: "http://id.example.test" })).toThrow(
      /RECEIPT_OIDC_ISSUER: must be an https/,
    );
    expect(() => parseEnv({ ...trio, RECEIPT_OIDC_SCOPES: "profile email" })).toThrow(/RECEIPT_OIDC_SCOPES/);
  });
});
