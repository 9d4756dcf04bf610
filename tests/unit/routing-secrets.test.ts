// Masked secrets round-trip: a config read masked (UI, export for git) can be saved again and keeps
// every stored secret; a token that no longer matches its target is refused, never guessed.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { maskSecrets, type TRoutingConfig } from "@/lib/routing/config";
import { unmaskSecrets } from "@/lib/routing/secrets";
import { validateRoutingConfig } from "@/lib/routing/validate";

function stored(): TRoutingConfig {
  const raw = JSON.parse(
    readFileSync(path.resolve(import.meta.dirname, "../fixtures/routing/valid-team-tree.json"), "utf8"),
  );
  const result = validateRoutingConfig(raw);
  if (!result.ok) throw new Error("fixture must be valid");
  return result.config;
}

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe("unmaskSecrets", () => {
  it("restores every masked secret of an unchanged masked copy exactly", () => {
    const config = stored();
    const result = unmaskSecrets(clone(maskSecrets(config)), config);
    expect(result).toEqual({ ok: true, value: clone(config) });
  });

  it("follows a target to its new position when targets are reordered or removed", () => {
    const config = stored();
    const masked = clone(maskSecrets(config));
    const payments = masked.channels[1];
    if (!payments) throw new Error("fixture has two channels");
    payments.targets = [payments.targets[1] as (typeof payments.targets)[number]];
    const result = unmaskSecrets(masked, config);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const value = result.value as TRoutingConfig;
    expect(value.channels[1]?.targets).toEqual([
      { type: "slack", url: "https://hooks.slack.com/services/T000/B000/XXXX" },
    ]);
  });

  it("keeps a newly entered secret as it is", () => {
    const config = stored();
    const masked = clone(maskSecrets(config));
    const ops = masked.channels[0]?.targets[0];
    if (ops?.type !== "webhook") throw new Error("fixture: ops has a webhook");
    ops.secret = "a-brand-new-secret-0001";
    const result = unmaskSecrets(masked, config);
    expect(result.ok && (result.value as TRoutingConfig).channels[0]?.targets[0]).toMatchObject({
      secret: "a-brand-new-secret-0001",
    });
  });

  it("refuses a token whose target changed URL, and a bare mask, with their JSON paths", () => {
    const config = stored();
    const masked = clone(maskSecrets(config));
    const ops = masked.channels[0]?.targets[0];
    if (ops?.type !== "webhook") throw new Error("fixture: ops has a webhook");
    ops.url = "https://attacker.example.com/";
    const pd = masked.channels[1]?.targets[0];
    if (pd?.type !== "pagerduty") throw new Error("fixture: pagerduty first");
    pd.routingKey = "••••••";
    const result = unmaskSecrets(masked, config);
    expect(result.ok ? [] : result.errors.map((e) => [e.path, e.code])).toEqual([
      ["$.channels[0].targets[0].secret", "masked_secret_unresolved"],
      ["$.channels[1].targets[0].routingKey", "masked_secret_unresolved"],
    ]);
  });

  it("never lets a masked value through to validation as if it were a secret", () => {
    const config = stored();
    const masked = maskSecrets(config);
    expect(JSON.stringify(masked)).not.toMatch(/0123456789abcdef0123|R0UTINGKEY|T000\/B000/);
    expect(masked.channels[0]?.targets[0]).toMatchObject({ secret: "••••••#ops/0" });
  });
});

describe("a webhook URL that carries its own credential", () => {
  const withTokenUrl = (url: string): TRoutingConfig => {
    const config = stored();
    const channel = config.channels[0];
    if (!channel) throw new Error("fixture has a channel");
    channel.targets = [{ type: "webhook", url, secret: "stored-hmac-secret-0123456789" }];
    return config;
  };

  it.each([
    "https://hooks.example.com/in?token=tok_live_abcdef123456",
    "https://bot:s3cr3t-password@hooks.example.com/in",
  ])("is masked to scheme, host and path (%s), and restored exactly on save", (url) => {
    const config = withTokenUrl(url);
    const masked = maskSecrets(config);
    const shown = masked.channels[0]?.targets[0];
    const name = config.channels[0]?.name;
    expect(shown).toMatchObject({ type: "webhook", url: `https://hooks.example.com/in?••••••#${name}/0` });
    expect(JSON.stringify(masked)).not.toMatch(/tok_live|s3cr3t|bot:/);
    expect(unmaskSecrets(clone(masked), config)).toEqual({ ok: true, value: clone(config) });
  });

  it("leaves a URL without a credential as it is", () => {
    const config = withTokenUrl("https://hooks.example.com/in");
    expect(maskSecrets(config).channels[0]?.targets[0]).toMatchObject({
      url: "https://hooks.example.com/in",
    });
  });

  it("refuses a masked URL moved to another host or path, at the url's JSON path", () => {
    const config = withTokenUrl("https://hooks.example.com/in?token=tok_live_abcdef123456");
    const masked = clone(maskSecrets(config));
    const target = masked.channels[0]?.targets[0] as { url: string };
    target.url = target.url.replace("/in?", "/elsewhere?");
    const result = unmaskSecrets(masked, config);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toContainEqual({
      path: "$.channels[0].targets[0].url",
      code: "masked_secret_unresolved",
      message: "this masked URL no longer matches the stored target it came from; enter the URL again",
    });
  });
});
