// Routing kept as code: the YAML/JSON document (parse with line:column and paths, print in a stable order with
// secrets masked), `${env:NAME}` references, and the rule that a route without matchers must be its parent's last.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadRoutingConfig } from "@/lib/routing/compile";
import { maskSecrets, type TRoutingConfig } from "@/lib/routing/config";
import { DEFAULT_ROUTING_CONFIG } from "@/lib/routing/defaults";
import {
  canonicalConfig,
  locateErrors,
  parseRoutingDocument,
  printRoutingDocument,
  resolveSecretReferences,
  secretEnvPrefixes,
  withPlaceholderSecrets,
} from "@/lib/routing/document";
import { validateRoutingConfig } from "@/lib/routing/validate";

const WEBHOOK_SECRET = "whsec-0123456789abcdef";
const PD_KEY = "0123456789abcdef0123456789abcdef";
const SLACK_URL = "https://hooks.slack.com/services/T000/B000/SLACKSECRET";

function configWithSecrets(): TRoutingConfig {
  const config = structuredClone(DEFAULT_ROUTING_CONFIG);
  const [first, second] = config.channels;
  if (!first || !second) throw new Error("the default has channels");
  first.targets = [
    { type: "webhook", url: "https://hooks.example.com/receipt", secret: WEBHOOK_SECRET },
    { type: "slack", url: SLACK_URL },
  ];
  second.targets = [
    { type: "pagerduty", routingKey: PD_KEY, url: "https://events.pagerduty.com/v2/enqueue" },
  ];
  return config;
}

const parsedValue = (text: string): unknown => {
  const parsed = parseRoutingDocument(text);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.value;
};

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../fixtures/routing/${name}`, import.meta.url), "utf8"));

describe("print and parse", () => {
  it("round-trips: the printed document parses back to the masked config, and prints identically", () => {
    const text = printRoutingDocument(configWithSecrets(), { version: "7" });
    expect(text).toContain("# Server version: 7.");
    const value = parsedValue(text);
    expect(value).toEqual(canonicalConfig(maskSecrets(configWithSecrets())));
    expect(printRoutingDocument(value as TRoutingConfig, { version: "7" })).toBe(text);
  });

  it("never prints a secret: webhook secrets, routing keys and Slack URL paths are masked", () => {
    const text = printRoutingDocument(configWithSecrets());
    for (const secret of [WEBHOOK_SECRET, PD_KEY, "SLACKSECRET"]) expect(text).not.toContain(secret);
    expect(text).toContain("secret: ••••••#");
    expect(text).toContain("routingKey: ••••••#");
    expect(text).toContain("url: https://hooks.slack.com/••••••#");
  });

  it("has a stable key order whatever order the config was written in", () => {
    const config = configWithSecrets();
    const shuffled = JSON.parse(
      JSON.stringify(config, (_key, value) =>
        value && typeof value === "object" && !Array.isArray(value)
          ? Object.fromEntries(Object.entries(value).reverse())
          : value,
      ),
    ) as TRoutingConfig;
    expect(Object.keys(shuffled)[0]).not.toBe("version");
    const text = printRoutingDocument(shuffled);
    expect(text).toBe(printRoutingDocument(config));
    expect(text.split("\n").find((line) => line !== "" && !line.startsWith("#"))).toBe("version: 1");
  });

  it("reads JSON as well (an exported JSON file is a YAML document)", () => {
    const json = JSON.stringify(maskSecrets(configWithSecrets()), null, 2);
    expect(parsedValue(json)).toEqual(maskSecrets(configWithSecrets()));
  });

  it("a syntax error has its line, column and the JSON path of the node it is in", () => {
    const text = [
      "version: 1",
      "route:",
      "  receiver: a",
      "  routes:",
      '    - matchers: [state="x"',
      "channels: []",
    ];
    const parsed = parseRoutingDocument(text.join("\n"));
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.errors[0]).toMatchObject({ line: 6, column: 1, path: "$.route.routes[0].matchers" });
    expect(parsed.errors[0]?.message).toMatch(/^line 6, column 1: /);
  });

  it("a duplicated key is an error, not a silent override", () => {
    const parsed = parseRoutingDocument("version: 1\nversion: 1\n");
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.errors[0]).toMatchObject({ code: "yaml_duplicate_key", line: 2 });
  });

  it("validation errors are located in the text by their JSON path", () => {
    const text = [
      "version: 1",
      "channels:",
      "  - name: a",
      "    ownerRole: team a",
      "    targets: []",
      "route:",
      "  receiver: a",
      "  routes:",
      "    - matchers: ['state=\"tool_failed\"']",
      "      receiver: nobody",
    ].join("\n");
    const parsed = parseRoutingDocument(text);
    if (!parsed.ok) throw new Error("parses");
    const result = validateRoutingConfig(parsed.value);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(locateErrors(result.errors, parsed.locate)).toEqual([
      expect.objectContaining({ path: "$.route.routes[0].receiver", line: 10, column: 17 }),
    ]);
  });

  it("refuses a document whose aliases expand without bound", () => {
    const bomb = ["a: &a [x, x, x, x, x, x, x, x, x, x]", "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]"];
    bomb.push(
      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]",
      "d: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]",
    );
    const parsed = parseRoutingDocument(bomb.join("\n"));
    expect(parsed.ok).toBe(false);
  });
});

describe("secret references", () => {
  const withRefs = () => {
    const value = structuredClone(configWithSecrets()) as unknown as {
      channels: Array<{ targets: Array<Record<string, string>> }>;
    };
    const [first, second] = value.channels;
    if (!first?.targets[0] || !second?.targets[0]) throw new Error("targets");
    first.targets[0].secret = `\${env:RECEIPT_SECRET_HOOK}`;
    second.targets[0].routingKey = `\${env:RECEIPT_SECRET_PD_KEY}`;
    return value;
  };

  it("resolves env references in credential fields from the given environment", () => {
    const resolved = resolveSecretReferences(withRefs(), {
      RECEIPT_SECRET_HOOK: WEBHOOK_SECRET,
      RECEIPT_SECRET_PD_KEY: PD_KEY,
    });
    expect(resolved).toEqual({ ok: true, value: configWithSecrets() });
  });

  it("names each missing variable at its path, and never prints a value", () => {
    const resolved = resolveSecretReferences(withRefs(), { RECEIPT_SECRET_PD_KEY: PD_KEY });
    expect(resolved).toEqual({
      ok: false,
      errors: [
        {
          path: "$.channels[0].targets[0].secret",
          code: "missing_env",
          message: "environment variable RECEIPT_SECRET_HOOK is not set",
        },
      ],
    });
    expect(JSON.stringify(resolved)).not.toContain(PD_KEY);
  });

  it("refuses a variable without an allowed prefix, and the CLI's own key whatever is allowed (issue 39 §4)", () => {
    const value = structuredClone(configWithSecrets()) as unknown as {
      channels: Array<{ targets: Array<Record<string, string>> }>;
    };
    const [first] = value.channels;
    if (!first) throw new Error("channels");
    first.targets = [{ type: "slack", url: `http://127.0.0.1:8740/services/\${env:RECEIPT_KEY}` }];
    const env = { RECEIPT_KEY: "rk_admin_key_never_sent", HOME_TOKEN: "t" };
    for (const prefixes of [undefined, ["RECEIPT_"], [""]]) {
      const resolved = resolveSecretReferences(value, env, prefixes);
      expect(resolved).toMatchObject({
        ok: false,
        errors: [{ path: "$.channels[0].targets[0].url", code: "env_not_allowed" }],
      });
      expect(JSON.stringify(resolved)).not.toContain(env.RECEIPT_KEY);
    }
    first.targets = [{ type: "webhook", url: "https://hooks.example.com/x", secret: `\${env:HOME_TOKEN}` }];
    expect(resolveSecretReferences(value, env)).toMatchObject({
      ok: false,
      errors: [{ code: "env_not_allowed" }],
    });
    // An admin may allow another prefix for their own variables.
    expect(resolveSecretReferences(value, { HOME_TOKEN: "t".repeat(32) }, ["HOME_"])).toMatchObject({
      ok: true,
    });
  });

  it("RECEIPT_ROUTING_ENV_PREFIXES: comma-separated prefixes, the default when unset or blank", () => {
    expect(secretEnvPrefixes(undefined)).toEqual(["RECEIPT_SECRET_"]);
    expect(secretEnvPrefixes(" , ")).toEqual(["RECEIPT_SECRET_"]);
    expect(secretEnvPrefixes("CI_SECRET_, VAULT_")).toEqual(["CI_SECRET_", "VAULT_"]);
  });

  it("an unresolved reference is never accepted as the secret itself", () => {
    const result = validateRoutingConfig(withRefs());
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          path: "$.channels[0].targets[0].secret",
          code: "unresolved_secret_reference",
        }),
        expect.objectContaining({
          path: "$.channels[1].targets[0].routingKey",
          code: "unresolved_secret_reference",
        }),
      ]),
    );
  });

  it("a local check stands masked secrets and references in for valid ones, and judges the rest", () => {
    const masked = parsedValue(printRoutingDocument(configWithSecrets()));
    expect(validateRoutingConfig(masked).ok).toBe(false); // a masked PagerDuty key is not 32 characters
    expect(validateRoutingConfig(withPlaceholderSecrets(masked)).ok).toBe(true);
    expect(validateRoutingConfig(withPlaceholderSecrets(withRefs())).ok).toBe(true);
  });
});

describe("a route without matchers must be its parent's last (catch_all_not_last)", () => {
  const tree = (routes: unknown[]): unknown => ({
    version: 1,
    channels: [{ name: "a", ownerRole: "team a", targets: [] }],
    route: { receiver: "a", routes },
  });
  const errorsOf = (config: unknown) => {
    const result = validateRoutingConfig(config);
    return result.ok ? [] : result.errors.map(({ path, code }) => ({ path, code }));
  };
  const specific = { matchers: ['state="tool_failed"'], receiver: "a" };

  it("refuses an empty-matcher route placed before its siblings, at the route's path", () => {
    expect(errorsOf(tree([{ matchers: [], receiver: "a" }, specific]))).toEqual([
      { path: "$.route.routes[0]", code: "catch_all_not_last" },
    ]);
  });

  it("refuses a route with no matchers field at all the same way", () => {
    expect(errorsOf(tree([specific, { receiver: "a" }, specific]))).toEqual([
      { path: "$.route.routes[1]", code: "catch_all_not_last" },
    ]);
  });

  it("accepts the explicit last catch-all, and a lone child without matchers", () => {
    expect(errorsOf(tree([specific, { receiver: "a" }]))).toEqual([]);
    expect(errorsOf(tree([{ matchers: [], receiver: "a", continue: true }]))).toEqual([]);
  });

  it("applies among nested routes, each parent's children on their own", () => {
    const nested = { ...specific, routes: [{ receiver: "a" }, { matchers: ['tool="x"'] }] };
    expect(errorsOf(tree([nested, { receiver: "a" }]))).toEqual([
      { path: "$.route.routes[0].routes[0]", code: "catch_all_not_last" },
    ]);
    const fine = { ...specific, routes: [{ matchers: ['tool="x"'] }, { receiver: "a" }] };
    expect(errorsOf(tree([fine]))).toEqual([]);
  });

  it("does not call a route whose matchers are malformed a catch-all", () => {
    expect(errorsOf(tree([{ matchers: 'state="x"', receiver: "a" }, specific]))).toEqual([
      { path: "$.route.routes[0].matchers", code: "invalid_type" },
    ]);
  });

  it("the shipped default and every valid fixture still load", () => {
    expect(loadRoutingConfig(DEFAULT_ROUTING_CONFIG).ok).toBe(true);
    const files = readdirSync(new URL("../fixtures/routing/", import.meta.url)).filter((f) =>
      f.startsWith("valid-"),
    );
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(validateRoutingConfig(fixture(file)), file).toMatchObject({ ok: true });
  });
});
