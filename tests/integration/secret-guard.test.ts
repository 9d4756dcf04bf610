import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HealthRecord } from "@/lib/contract";
import { DEFAULT_ROUTING_CONFIG } from "@/lib/routing/defaults";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { routingApi } from "@/tests/support/routing-helpers";
import { adminCookie } from "@/tests/support/dashboard-session";
import { createTestDatabase } from "@/tests/support/test-database";
import { build, legacyRecord } from "@/tests/support/record-builders";
import { join } from "@/tests/support/secret-samples";

// The secret guard on the real app: records, silence comments and routing-config comments holding a credential
// get 422 secret_detected with the path; the value is neither answered nor logged, and nothing is stored.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let admin: ReturnType<typeof routingApi>;
let ingestKey: string;
let readKey: string;

beforeAll(async () => {
  db = await createTestDatabase();
  ingestKey = await createTestKey(db.url, "agent");
  readKey = await createTestKey(db.url, "reader", ["read"]);
  app = await startApp(db.url);
  admin = routingApi(app.baseUrl, await adminCookie(app.baseUrl));
});
afterAll(async () => {
  await app?.stop();
  await db?.drop();
});

async function storedChainCount(): Promise<number> {
  const response = await apiClient(app.baseUrl, readKey).get("/api/v1/stats");
  return ((await response.json()) as { total: number }).total;
}

const challenge = (record: HealthRecord, fields: Record<string, string>) => {
  record.session.auth = { challenge: { status: 401, at: record.observedAt, ...fields } };
};

/** The part of each secret that must appear nowhere: the credential itself, not its disguise. */
const BODY = {
  password: join("s3cret", "-Pa55word"),
  token: join("abc123", "DEF456ghi789"),
  aws: join("wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYEXAMPLEKEY"),
  slack: join("abcdefghij", "klmnopqrstuv"),
  basic: btoa(join("svc:", "correct-horse")),
};

describe("records", () => {
  it.each([
    {
      name: "a database URL with a password in the effect receipt",
      plant: (r: HealthRecord) => {
        if (r.call?.effect) r.call.effect.receipt = `postgres://app:${BODY.password}@db.internal/app`;
      },
      path: "$.call.effect.receipt",
      pattern: "url_userinfo",
      secret: () => BODY.password,
    },
    {
      name: "an access_token query parameter in the challenged resource",
      plant: (r: HealthRecord) =>
        challenge(r, { resource: `https://reports.example.com/mcp?access_token=${BODY.token}` }),
      path: "$.session.auth.challenge.resource",
      pattern: "credential_query_param",
      secret: () => BODY.token,
    },
    {
      name: "a percent-encoded Bearer token in a label",
      plant: (r: HealthRecord) => {
        r.labels = { note: `Authorization%3A%20Bearer%20${BODY.token}` };
      },
      path: "$.labels.note",
      pattern: "bearer_token",
      secret: () => BODY.token,
    },
    {
      name: "a Bearer token split by zero-width spaces as the tool name",
      plant: (r: HealthRecord) => {
        if (r.call) r.call.tool = `Bearer\u200B${BODY.token.slice(0, 6)}\u200B${BODY.token.slice(6)}`;
      },
      path: "$.call.tool",
      pattern: "bearer_token",
      secret: () => BODY.token.slice(6),
    },
    {
      name: "Basic credentials as the server name",
      plant: (r: HealthRecord) => {
        if (r.session.server) r.session.server.name = `Basic ${BODY.basic}`;
      },
      path: "$.session.server.name",
      pattern: "basic_auth",
      secret: () => BODY.basic,
    },
    {
      name: "an AWS secret access key in an unknown field",
      plant: (r: HealthRecord) => {
        (r as unknown as Record<string, unknown>).env = {
          AWS_SECRET_ACCESS_KEY: `aws_secret_access_key=${BODY.aws}`,
        };
      },
      path: "$.env.AWS_SECRET_ACCESS_KEY",
      pattern: "aws_secret_access_key",
      secret: () => BODY.aws,
    },
    {
      name: "a Slack incoming-webhook URL in the outcome receipt",
      plant: (r: HealthRecord) => {
        if (r.call?.outcome)
          r.call.outcome.receipt = `https://hooks.slack.com/services/T0ABCDEF1/B0ABCDEF2/${BODY.slack}`;
      },
      path: "$.call.outcome.receipt",
      pattern: "slack_webhook_url",
      secret: () => BODY.slack,
    },
    {
      name: "Receipt's own ingestion key in a label",
      plant: (r: HealthRecord) => {
        r.labels = { key: ingestKey };
      },
      path: "$.labels.key",
      pattern: "receipt_api_key",
      // The key exists only once the database is up.
      secret: () => ingestKey.slice("rcpt_".length),
    },
  ])(
    "$name → 422 secret_detected ($pattern) at its path, never echoed or logged, nothing stored",
    async ({ plant, path, pattern, secret: secretOf }) => {
      const secret = secretOf();
      const before = await storedChainCount();
      const record = build((r) => {
        r.recordId = `rec:secret-${pattern}`;
        r.chainId = `chain:secret-${pattern}`;
        plant(r);
      });
      expect(JSON.stringify(record)).toContain(secret.slice(-10));
      const response = await apiClient(app.baseUrl, ingestKey).post([legacyRecord(), record]);
      const text = await response.text();
      expect(response.status).toBe(422);
      const body = JSON.parse(text);
      expect(body.error.code).toBe("secret_detected");
      expect(body.error.issues[0]).toEqual({
        index: 1,
        path,
        code: "secret_detected",
        message: `value matches credential pattern '${pattern}'`,
      });
      expect(text).not.toContain(secret);
      expect(app.output()).not.toContain(secret);
      expect(await storedChainCount()).toBe(before);
    },
  );

  it.each([
    ["resource", "https://reports.example.com/mcp?page=2"],
    ["resourceMetadataUrl", "https://reports.example.com/.well-known/oauth-protected-resource?tenant=a"],
    ["resource", "https://reports.example.com/mcp#top"],
  ])(
    "a %s with a query or fragment → 422 invalid_records url_has_query at its path, nothing stored",
    async (field, url) => {
      const before = await storedChainCount();
      const record = build((r) => {
        r.recordId = "rec:query";
        r.chainId = "chain:query";
        challenge(r, { [field]: url });
      });
      const response = await apiClient(app.baseUrl, ingestKey).post([record]);
      expect(response.status).toBe(422);
      expect(await response.json()).toEqual({
        error: {
          code: "invalid_records",
          message: "the batch has invalid records; nothing was stored",
          issues: [
            {
              index: 0,
              path: `$.session.auth.challenge.${field}`,
              code: "url_has_query",
              message: "expected a URL without a query string or fragment",
            },
          ],
        },
      });
      expect(await storedChainCount()).toBe(before);
    },
  );

  it("the same challenge without its query is stored", async () => {
    const record = build((r) => {
      r.recordId = "rec:plain-resource";
      r.chainId = "chain:plain-resource";
      challenge(r, {
        resource: "https://reports.example.com/mcp",
        resourceMetadataUrl: "https://reports.example.com/.well-known/oauth-protected-resource",
      });
    });
    expect((await apiClient(app.baseUrl, ingestKey).post([record])).status).toBe(200);
  });
});

describe("silence comments", () => {
  const secret = join("ghp_", "Zx9".repeat(12));

  it("a new silence whose comment holds a credential → 422 secret_detected at $.comment; nothing stored", async () => {
    const response = await admin.post("/silences", {
      matchers: ['server="db-1"'],
      duration: "1h",
      comment: `rotating ${secret}`,
    });
    expect(response.status).toBe(422);
    expect(response.json).toEqual({
      error: {
        code: "secret_detected",
        message: "a field contains a credential; nothing was stored",
        issues: [
          { path: "$.comment", code: "secret_detected", message: "looks like a credential (github_token)" },
        ],
      },
    });
    expect(response.text).not.toContain(secret);
    expect((await admin.get("/silences")).json.silences).toEqual([]);
    expect(app.output()).not.toContain(secret);
  });

  it("editing a silence's comment to hold a percent-encoded credential → 422; the comment stays", async () => {
    const created = await admin.post("/silences", {
      matchers: ['server="db-1"'],
      duration: "1h",
      comment: "migration",
    });
    expect(created.status).toBe(201);
    const password = join("hunter", "2-xyz");
    const edited = await admin.put(`/silences/${created.json.silence.id}`, {
      matchers: ['server="db-1"'],
      duration: "1h",
      comment: `see https%3A%2F%2Fops%3A${password}%40vault.internal`,
    });
    expect(edited.status).toBe(422);
    expect(edited.json.error).toMatchObject({
      code: "secret_detected",
      issues: [
        { path: "$.comment", code: "secret_detected", message: "looks like a credential (url_userinfo)" },
      ],
    });
    expect(edited.text).not.toContain(password);
    const [stored] = (await admin.get("/silences")).json.silences;
    expect(stored).toMatchObject({ id: created.json.silence.id, comment: "migration" });
    expect(app.output()).not.toContain(password);
  });
});

describe("routing-config comments", () => {
  const token = join("xapp-", "1-A0123ABCD-4567890123-", "abcdef0123456789");

  it("a version comment holding a credential → 422 secret_detected at $.query.comment; nothing saved", async () => {
    const response = await admin.put(
      `/config?comment=${encodeURIComponent(`slack app ${token}`)}`,
      structuredClone(DEFAULT_ROUTING_CONFIG),
    );
    expect(response.status).toBe(422);
    expect(response.json.error).toEqual({
      code: "secret_detected",
      message: "a field contains a credential; nothing was stored",
      issues: [
        {
          path: "$.query.comment",
          code: "secret_detected",
          message: "looks like a credential (slack_token)",
        },
      ],
    });
    expect(response.text).not.toContain(token);
    expect((await admin.get("/config")).json.version).toBe("default");
    expect((await admin.get("/config/versions")).json.versions).toEqual([]);
    expect(app.output()).not.toContain(token);
  });

  it("a silence comment inside the config holding a credential → 422 at $.silences[1].comment; nothing saved", async () => {
    const config = structuredClone(DEFAULT_ROUTING_CONFIG);
    const silence = {
      matchers: ['server="db-1"'],
      startsAt: "2026-12-01T00:00:00Z",
      endsAt: "2026-12-02T00:00:00Z",
      createdBy: "ops",
    };
    config.silences = [
      { ...silence, id: "maintenance", comment: "planned maintenance" },
      { ...silence, id: "leaky", comment: `api key: ${token}` },
    ];
    const response = await admin.put("/config", config);
    expect(response.status).toBe(422);
    expect(response.json.error).toMatchObject({
      code: "secret_detected",
      issues: [{ path: "$.silences[1].comment", code: "secret_detected" }],
    });
    expect(response.json.error.issues).toHaveLength(1);
    expect(response.text).not.toContain(token);
    expect((await admin.get("/config/versions")).json.versions).toEqual([]);
  });

  it("the same config and comment without the credential are saved", async () => {
    const response = await admin.put("/config?comment=from%20git", structuredClone(DEFAULT_ROUTING_CONFIG));
    expect(response.status).toBe(200);
    expect((await admin.get("/config/versions")).json.versions).toMatchObject([{ comment: "from git" }]);
  });
});
