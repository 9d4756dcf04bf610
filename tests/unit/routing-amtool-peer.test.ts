// The route test compared with its peer: Alertmanager's `amtool config routes test` on the same tree (Receipt's
// `label.team` is Alertmanager's `team`). Runs where Debian's prometheus-alertmanager is installed; skipped elsewhere.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { loadRoutingConfig } from "@/lib/routing/compile";
import { parseRoutingDocument } from "@/lib/routing/document";
import { explainRouting } from "@/lib/routing/route-test";
import type { State } from "@/lib/routing/types";

const AMTOOL = "/usr/bin/amtool";

const DOCUMENT = `
version: 1
channels:
  - { name: ops, ownerRole: ops, targets: [] }
  - { name: payments-oncall, ownerRole: payments, targets: [] }
  - { name: creds, ownerRole: credentials, targets: [] }
route:
  receiver: ops
  groupBy: [server, state]
  routes:
    - matchers: ['label.team="payments"']
      receiver: payments-oncall
      continue: true
    - matchers: ['state="tool_failed"']
      receiver: ops
      routes:
        - matchers: ['tool=~"charge|refund"']
          receiver: payments-oncall
        - receiver: creds
    - matchers: ['state=~"needs_auth|protocol_error"', 'server!="legacy"']
      receiver: creds
`;

/** The same tree as Alertmanager configures it. */
const ALERTMANAGER = {
  route: {
    receiver: "ops",
    group_by: ["server", "state"],
    routes: [
      { matchers: ['team="payments"'], receiver: "payments-oncall", continue: true },
      {
        matchers: ['state="tool_failed"'],
        receiver: "ops",
        routes: [{ matchers: ['tool=~"charge|refund"'], receiver: "payments-oncall" }, { receiver: "creds" }],
      },
      { matchers: ['state=~"needs_auth|protocol_error"', 'server!="legacy"'], receiver: "creds" },
    ],
  },
  receivers: [{ name: "ops" }, { name: "payments-oncall" }, { name: "creds" }],
};

type Case = { state: State; server?: string; tool?: string; team?: string };
const cases: Case[] = [
  { state: "tool_failed", tool: "charge", team: "payments" },
  { state: "tool_failed", tool: "refund" },
  { state: "tool_failed", tool: "search" },
  { state: "needs_auth", server: "legacy" },
  { state: "needs_auth", server: "billing", team: "payments" },
  { state: "protocol_error" },
  { state: "stale_catalog", team: "search" },
];

const dir = mkdtempSync(path.join(tmpdir(), "receipt-amtool-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!existsSync(AMTOOL))("route test against amtool config routes test", () => {
  const parsed = parseRoutingDocument(DOCUMENT);
  if (!parsed.ok) throw new Error("the document parses");
  const loaded = loadRoutingConfig(parsed.value);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  const amConfig = path.join(dir, "alertmanager.yml");
  writeFileSync(amConfig, stringify(ALERTMANAGER));

  it.each(cases)("%o reaches the same receivers in the same order", (c) => {
    const labels = Object.entries({ state: c.state, server: c.server, tool: c.tool, team: c.team })
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => `${key}=${value}`);
    const peer = execFileSync(AMTOOL, ["config", "routes", "test", `--config.file=${amConfig}`, ...labels], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    const ours = explainRouting(
      loaded.compiled,
      {
        chainId: "peer",
        sessionId: "peer",
        state: c.state,
        layer: "request",
        reasons: [`${c.state}.peer`],
        labels: c.team ? { team: c.team } : {},
        ...(c.server ? { server: c.server } : {}),
        ...(c.tool ? { tool: c.tool } : {}),
      },
      Date.now(),
    );
    expect(ours.alerts.flatMap((alert) => alert.routes.map((route) => route.receiver)).join(",")).toBe(peer);
  });
});
