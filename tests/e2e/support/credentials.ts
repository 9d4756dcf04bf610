// The admin of the app under test: playwright.config.ts passes it to the server as RECEIPT_ADMIN_PASSWORD (applied at
// start by scripts/serve.ts), the specs sign in with it.
export const E2E_ADMIN = { username: "admin", password: "e2e-admin-password" };
