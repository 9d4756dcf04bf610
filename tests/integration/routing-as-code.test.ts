import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import type { TRoutingConfig } from "@/lib/routing/config";
import { DEFAULT_ROUTING_CONFIG } from "@/lib/routing/defaults";
import { verifySignature } from "@/lib/routing/sign";
import { createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { adminCookie } from "@/tests/support/dashboard-session";
import { FAST_ROUTING_ENV, routingApi } from "@/tests/support/routing-helpers";
import { createTestDatabase } from "@/tests/support/test-database";
import { startWebhookReceiver, type WebhookReceiver } from "@/tests/support/webhook-receiver";

// Routing kept as code: `npm run routing` (the real CLI, as a child process) and the YAML API against the built app
// and a real database, with keys of the new `admin` scope and without it.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let receiver: WebhookReceiver;
let session: ReturnType<typeof routingApi>;
let adminKey: string;
let readKey: string;
let dir: string;

const SECRET = "from-the-ci-environment-0001";
const ENV_REF = `\${env:RECEIPT_SECRET_HOOK}`;
const root = path.resolve(import.meta.dirname, "../..");

/** Runs `npm run routing` (the same script under the same loader) without blocking this process's sockets. */
function routing(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "scripts/routing.ts", ...args],
      {
        cwd: root,
        env: {
          ...process.env,
          RECEIPT_URL: app.baseUrl,
          RECEIPT_KEY: adminKey,
          RECEIPT_SECRET_HOOK: "",
          ...env,
        },
      },
      (error, stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, stdout, stderr }),
    );
  });
}

function writeFile(name: string, content: string | object): string {
  const file = path.join(dir, name);
  writeFileSync(file, typeof content === "string" ? content : stringify(content));
  return file;
}

/** The shipped default with a signed webhook on `tool-owner`, its secret from the environment. */
function teamConfig(): TRoutingConfig {
  const config = structuredClone(DEFAULT_ROUTING_CONFIG);
  const tool = config.channels.find((c) => c.name === "tool-owner");
  if (tool) tool.targets = [{ type: "webhook", url: receiver.url("/hook/tool"), secret: ENV_REF }];
  return config;
}

const yamlRequest = (method: string, key: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${app.baseUrl}/api/v1/routing/config`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/yaml", ...headers },
    body,
  });

async function currentYaml(key = adminKey) {
  const response = await fetch(`${app.baseUrl}/api/v1/routing/config`, {
    headers: { authorization: `Bearer ${key}`, accept: "application/yaml" },
  });
  return { response, text: await response.text() };
}

/** A test notification to tool-owner, checked against `secret`: proves which secret is stored. */
async function expectSignedWith(secret: string) {
  const before = receiver.received("/hook/tool").length;
  expect((await session.post("/test-notification", { channel: "tool-owner" })).status).toBe(202);
  await receiver.waitFor(() => receiver.received("/hook/tool").length > before, 10_000);
  const got = receiver.received("/hook/tool").at(-1);
  expect(verifySignature(got?.body ?? "", got?.headers ?? {}, secret, Date.now())).toEqual({ ok: true });
}

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startWebhookReceiver();
  adminKey = await createTestKey(db.url, "ci-routing", ["admin"]);
  readKey = await createTestKey(db.url, "reader", ["read"]);
  app = await startApp(db.url, FAST_ROUTING_ENV);
  session = routingApi(app.baseUrl, await adminCookie(app.baseUrl));
  dir = mkdtempSync(path.join(tmpdir(), "receipt-routing-code-"));
});
afterAll(async () => {
  await app?.stop();
  await receiver?.stop();
  await db?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// Each CLI run starts a TypeScript loader: slow on a busy machine, so these tests get more time than the default.
describe("the CLI against the server, with an admin key", { timeout: 240_000 }, () => {
  it("check: a valid file exits 0; a catch-all before its siblings exits 1 with its line and path", async () => {
    expect(await routing(["check", writeFile("team.yaml", teamConfig())])).toMatchObject({ code: 0 });
    const bad = teamConfig();
    bad.route.routes?.unshift({ matchers: [], receiver: "tool-owner" });
    const result = await routing(["check", writeFile("bad.yaml", bad)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/bad\.yaml:\d+:\d+: \$\.route\.routes\[0\] catch_all_not_last: /);
  });

  it("test: prints the receivers an alert reaches, in order, and --expect fails on a mismatch", async () => {
    const file = writeFile("team.yaml", teamConfig());
    const failed = await routing(["test", file, "--state", "tool_failed", "--server", "reports-mcp"]);
    expect(failed).toMatchObject({ code: 0, stdout: "tool-owner\n" });
    const wrong = await routing(["test", file, "--state", "tool_failed", "--expect", "reconciliation"]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("expected reconciliation, got tool-owner");
  });

  it("diff: no change against the server's own document; a missing env var is named, never a value", async () => {
    const { response, text } = await currentYaml();
    expect(response.headers.get("content-type")).toContain("application/yaml");
    expect(response.headers.get("etag")).toBe('"default"');
    expect(await routing(["diff", writeFile("current.yaml", text)])).toMatchObject({ code: 0, stdout: "" });
    const missing = await routing(["diff", writeFile("team.yaml", teamConfig())]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("environment variable RECEIPT_SECRET_HOOK is not set");
  });

  it("apply: a Slack URL naming env:RECEIPT_KEY is refused before anything is sent; the key goes nowhere", async () => {
    const before = await currentYaml();
    const leaky = teamConfig();
    const tool = leaky.channels.find((c) => c.name === "tool-owner");
    if (!tool) throw new Error("no tool-owner channel");
    tool.targets = [{ type: "slack", url: receiver.url(`/services/\${env:RECEIPT_KEY}`) }];
    const applied = await routing(["apply", writeFile("leaky.yaml", leaky)], { RECEIPT_SECRET_HOOK: SECRET });
    expect(applied.code).toBe(2);
    expect(applied.stderr).toMatch(/env_not_allowed: environment variable RECEIPT_KEY may not be read/);
    expect(applied.stderr + applied.stdout).not.toContain(adminKey);
    expect(JSON.stringify(receiver.received())).not.toContain(adminKey);
    expect((await currentYaml()).response.headers.get("etag")).toBe(before.response.headers.get("etag"));
  });

  it("diff then apply: a unified diff (the new secret masked), then the new version", async () => {
    const file = writeFile("team.yaml", teamConfig());
    const diff = await routing(["diff", file], { RECEIPT_SECRET_HOOK: SECRET });
    expect(diff.code).toBe(1);
    expect(diff.stdout).toMatch(/^={67}\n--- server \(version default\)\n\+\+\+ .*team\.yaml/);
    expect(diff.stdout).toMatch(/^\+ +secret: ••••••#tool-owner\/0 \(new secret\)$/m);
    expect(diff.stdout + diff.stderr).not.toContain(SECRET);

    const applied = await routing(["apply", file, "--comment", "from CI"], { RECEIPT_SECRET_HOOK: SECRET });
    expect(applied).toMatchObject({ code: 0, stdout: "applied: version 1 (was default)\n" });
    expect(await routing(["diff", file], { RECEIPT_SECRET_HOOK: SECRET })).toMatchObject({
      code: 0,
      stdout: "",
    });
    expect((await routing(["apply", file], { RECEIPT_SECRET_HOOK: SECRET })).stdout).toBe(
      "no change: version 1 is current\n",
    );
    const versions = await session.get("/config/versions");
    expect(versions.json.versions[0]).toMatchObject({
      version: "1",
      createdBy: "key:ci-routing",
      comment: "from CI",
    });
    await expectSignedWith(SECRET);
  });

  it("a masked secret keeps the stored one: the server's document, edited and applied, still signs with it", async () => {
    const { text } = await currentYaml();
    expect(text).not.toContain(SECRET);
    const edited = parse(text) as TRoutingConfig;
    edited.route.routes?.unshift({
      name: "payments",
      matchers: ['label.team="payments"'],
      receiver: "tool-owner",
    });
    const applied = await routing(["apply", writeFile("masked.yaml", edited)]);
    expect(applied).toMatchObject({ code: 0, stdout: "applied: version 2 (was 1)\n" });
    await expectSignedWith(SECRET);
  });

  it("apply without the admin scope is refused (403), and nothing is saved", async () => {
    const result = await routing(["apply", writeFile("team.yaml", teamConfig())], {
      RECEIPT_SECRET_HOOK: "another-secret-000000001",
      RECEIPT_KEY: readKey,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("HTTP 403 forbidden");
    expect((await currentYaml()).response.headers.get("etag")).toBe('"2"');
  });
});

describe("the YAML API", () => {
  it("a read key reads YAML; only an admin key or a session may check or apply", async () => {
    const { response, text } = await currentYaml(readKey);
    expect(response.status).toBe(200);
    const put = await yamlRequest("PUT", readKey, text);
    expect(put.status).toBe(403);
    expect((await put.json()).error).toMatchObject({
      code: "forbidden",
      message: "this key lacks the 'admin' scope",
    });
    const check = await fetch(`${app.baseUrl}/api/v1/routing/config/check`, {
      method: "POST",
      headers: { authorization: `Bearer ${readKey}`, "content-type": "application/yaml" },
      body: text,
    });
    expect(check.status).toBe(403);
  });

  it("an admin key reads what read keys read, but cannot create keys or triage", async () => {
    const auth = { authorization: `Bearer ${adminKey}` };
    expect((await fetch(`${app.baseUrl}/api/v1/stats`, { headers: auth })).status).toBe(200);
    const create = await fetch(`${app.baseUrl}/api/v1/keys`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ name: "sneaky", scopes: ["admin"] }),
    });
    expect(create.status).toBe(403);
    expect((await create.json()).error.code).toBe("forbidden");
    const triage = await fetch(`${app.baseUrl}/api/v1/chains/any-chain/triage`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ action: "acknowledge" }),
    });
    expect(triage.status).toBe(403);
  });

  it("YAML in, YAML out: PUT with If-Match answers the new version's document", async () => {
    const { text } = await currentYaml();
    const edited = text.replace("groupWait: 30s", "groupWait: 20s");
    expect(edited).not.toBe(text);
    const put = await yamlRequest("PUT", adminKey, edited, { "if-match": '"2"', accept: "application/yaml" });
    expect(put.status).toBe(200);
    expect(put.headers.get("etag")).toBe('"3"');
    expect(await put.text()).toContain("groupWait: 20s");
  });

  it("If-Match of an older version is a 409 config_changed", async () => {
    const { text } = await currentYaml();
    const put = await yamlRequest("PUT", adminKey, text, { "if-match": '"1"' });
    expect(put.status).toBe(409);
    expect((await put.json()).error.code).toBe("config_changed");
  });

  it("bad YAML is a 400 with the line, column and path of the error", async () => {
    const body =
      'version: 1\nroute:\n  receiver: tool-owner\n  routes:\n    - matchers: [state="x"\nchannels: []\n';
    const put = await yamlRequest("PUT", adminKey, body);
    expect(put.status).toBe(400);
    const { error } = await put.json();
    expect(error.code).toBe("invalid_yaml");
    expect(error.issues[0]).toMatchObject({ path: "$.route.routes[0].matchers" });
    expect(error.issues[0].message).toMatch(/^line 6, column 1: /);
  });

  it("a route without matchers placed first is a 422 at its path, with its line", async () => {
    const config = parse((await currentYaml()).text) as TRoutingConfig;
    config.route.routes?.unshift({ name: "added in the UI", matchers: [], receiver: "tool-owner" });
    const put = await yamlRequest("PUT", adminKey, stringify(config));
    expect(put.status).toBe(422);
    const { error } = await put.json();
    expect(error.code).toBe("invalid_routing_config");
    expect(error.issues).toEqual([
      expect.objectContaining({ path: "$.route.routes[0]", code: "catch_all_not_last" }),
    ]);
    expect(error.issues[0].message).toMatch(/^line \d+, column \d+: a route without matchers/);
  });

  it("a masked secret for a target with no stored secret is a 422 at its path; nothing is saved", async () => {
    const config = parse((await currentYaml()).text) as TRoutingConfig;
    const owner = config.channels.find((c) => c.name === "reconciliation");
    if (!owner) throw new Error("the default has a reconciliation channel");
    owner.targets = [
      { type: "webhook", url: receiver.url("/hook/recon"), secret: "••••••#reconciliation/0" },
    ];
    const index = config.channels.indexOf(owner);
    const put = await yamlRequest("PUT", adminKey, stringify(config));
    expect(put.status).toBe(422);
    const { error } = await put.json();
    expect(error.issues).toEqual([
      expect.objectContaining({
        path: `$.channels[${index}].targets[0].secret`,
        code: "masked_secret_unresolved",
      }),
    ]);
    expect((await currentYaml()).response.headers.get("etag")).toBe('"3"');
  });

  it("an unresolved env reference sent to the server is refused, never stored as the secret", async () => {
    const put = await yamlRequest("PUT", adminKey, stringify(teamConfig()));
    expect(put.status).toBe(422);
    expect((await put.json()).error.issues).toEqual([
      expect.objectContaining({ code: "unresolved_secret_reference" }),
    ]);
  });
});
