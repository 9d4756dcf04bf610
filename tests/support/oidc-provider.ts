import type { Server } from "node:http";
import Provider from "oidc-provider";

/** Claims of one account at the test provider; its login at the dev login form is the map's key (the `sub`). */
export type ProviderAccount = Record<string, unknown>;

export type TestProvider = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Add or change accounts while it runs: the next sign-in reads them. */
  accounts: Map<string, ProviderAccount>;
  stop: () => Promise<void>;
};

/**
 * A real OpenID Connect provider (oidc-provider, the certified implementation) on 127.0.0.1: one confidential
 * client for the app's callback, PKCE required, its development login form (any password) and consent page.
 * `receipt_role` comes with the `profile` scope, as a custom claim would at a real provider.
 */
export async function startTestProvider(options: {
  port: number;
  redirectUri: string;
  clientId?: string;
  clientSecret?: string;
}): Promise<TestProvider> {
  const issuer = `http://127.0.0.1:${options.port}`;
  const clientId = options.clientId ?? "receipt-test";
  const clientSecret = options.clientSecret ?? "receipt-test-client-secret-0123456789";
  const accounts = new Map<string, ProviderAccount>();
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
      },
    ],
    claims: {
      openid: ["sub"],
      profile: ["preferred_username", "name", "receipt_role"],
      email: ["email", "email_verified"],
    },
    findAccount: (_context, id) => {
      const claims = accounts.get(id);
      return claims ? { accountId: id, claims: async () => ({ sub: id, ...claims }) } : undefined;
    },
    pkce: { required: () => true },
    cookies: { keys: ["receipt-test-provider-cookie-key"] },
    features: { devInteractions: { enabled: true } },
  });
  const server: Server = await new Promise((resolve, reject) => {
    const listening = provider.listen(options.port, "127.0.0.1", () => resolve(listening));
    listening.once("error", reject);
  });
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
