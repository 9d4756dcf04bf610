/** The client the e2e app is configured with (playwright.config.ts) and tests/e2e/oidc.spec.ts's provider knows. */
export const E2E_OIDC_CLIENT = {
  clientId: "receipt-e2e",
  clientSecret: "receipt-e2e-client-secret-0123456789",
  name: "Example ID",
};
