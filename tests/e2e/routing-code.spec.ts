import { expect, test } from "@playwright/test";
import { signIn, snap } from "./support/dashboard";

// The admin key scope from the keys page: a key that CI can use to read and check the routing config (as YAML),
// and that still cannot manage keys. Checks only (no apply): the e2e database is shared by every spec.
test("create an admin key from the keys page and use it to read and check the routing config", async ({
  page,
}) => {
  const name = `ci-routing-${Date.now().toString(36)}`;
  await signIn(page);
  await page.goto("/settings/keys");
  await page.getByLabel("Name").fill(name);
  await page.getByRole("checkbox", { name: /ingest/ }).uncheck();
  await page.getByRole("checkbox", { name: /admin/ }).check();
  await page.getByRole("button", { name: "Create key" }).click();
  const key = (await page.getByTestId("new-key").textContent()) ?? "";
  expect(key).toMatch(/^rcpt_/);
  const row = page.locator(`tr[data-key-name="${name}"]`);
  await expect(row).toContainText("admin");
  await snap(page, "keys-admin-scope");

  const auth = { authorization: `Bearer ${key}` };
  const current = await page.request.get("/api/v1/routing/config", {
    headers: { ...auth, accept: "application/yaml" },
  });
  expect(current.status()).toBe(200);
  expect(current.headers()["content-type"]).toContain("application/yaml");
  const document = await current.text();
  expect(document).toContain("version: 1");

  const check = await page.request.post("/api/v1/routing/config/check", {
    headers: { ...auth, "content-type": "application/yaml" },
    data: document,
  });
  expect(check.status()).toBe(200);
  expect(await check.json()).toMatchObject({ changed: false });

  const createKey = await page.request.post("/api/v1/keys", {
    headers: { ...auth, "content-type": "application/json" },
    data: { name: `${name}-child`, scopes: ["admin"] },
  });
  expect(createKey.status()).toBe(403);

  await page.getByRole("button", { name: "I have stored it" }).click();
  await row.getByRole("button", { name: "Revoke…" }).click();
  await row.getByRole("button", { name: `Revoke ${name} now` }).click();
  await expect(row).toContainText("revoked");
});

// Issue 20: an "Add route" with empty matchers was accepted and placed first, silently catching every state.
test("the routing page's Add route with no matchers, placed first, is refused with the route's path", async ({
  page,
}) => {
  const name = `catch-all-${Date.now().toString(36)}`;
  await signIn(page, "/routing");
  const form = page.getByRole("form", { name: "Add a route" });
  await form.getByLabel("Route name").fill(name);
  await expect(form.getByLabel("Position")).toHaveValue("0"); // first, before every route
  await form.getByRole("button", { name: "Add route" }).click();
  // The form warns before saving; the server refuses it anyway, naming the route in words (its JSON path in the
  // tooltip, as an imported file's problems name it).
  const refusal = form.getByRole("alert").filter({ hasText: "a route without matchers catches every alert" });
  await expect(refusal).toContainText("route 1: a route without matchers catches every alert");
  await expect(refusal.locator('[title="$.route.routes[0]"]')).toHaveCount(1);
  await snap(page, "routing-catch-all-refused");
  const saved = (await (await page.request.get("/api/v1/routing/config")).json()) as {
    config: { route: { routes?: Array<{ name?: string }> } };
  };
  expect(saved.config.route.routes?.some((route) => route.name === name)).toBe(false);
});

// Issue 41 §9: the browser import takes YAML as the CLI does, and says where in the text a problem is. Refusals only:
// the e2e database is shared by every spec.
test("the import panel shows the config as YAML and names the line of a syntax error and of a refused value", async ({
  page,
}) => {
  await signIn(page, "/routing");
  const before = ((await (await page.request.get("/api/v1/routing/config")).json()) as { version: string })
    .version;
  const editor = page.getByLabel("Routing config (YAML or JSON)");
  await expect(editor).toHaveValue(/^# Receipt routing config/);
  await expect(editor).toHaveValue(/\nroute:\n/);
  const save = page.getByRole("button", { name: "Validate and save" });

  await editor.fill("version: 1\nroute: [unclosed\n");
  await expect(page.locator("#config-import-syntax")).toContainText(/line \d+, column \d+/);
  await expect(save).toBeDisabled();

  await editor.fill("version: 1\nchannels: []\nroute:\n  receiver: nowhere-at-all\n");
  await expect(save).toBeEnabled();
  await save.click();
  const refusal = page.getByRole("alert").filter({ hasText: /line \d+, column \d+/ });
  await expect(refusal).toBeVisible();
  await snap(page, "routing-import-yaml-refused");
  const after = ((await (await page.request.get("/api/v1/routing/config")).json()) as { version: string })
    .version;
  expect(after).toBe(before);
});
