import { describe, expect, it } from "vitest";
import { capabilityPaths } from "@/packages/collector/src";
import { withTasksFeature } from "@/lib/contract/capabilities";
import { v2Protocol } from "@/packages/collector/src/sdk/v2";
import { WireTap } from "@/packages/collector/src/wire-tap";

describe("WireTap.onmessage accessor", () => {
  it("observes every incoming message once, whoever installs, saves, chains or restores the handler", () => {
    const transport: { send: (m: unknown) => Promise<void>; onmessage?: (m: unknown) => void } = {
      send: async () => undefined,
    };
    const seen: unknown[] = [];
    const preset: unknown[] = [];
    transport.onmessage = (m) => preset.push(m); // a handler the caller set before connecting
    const tap = new WireTap(transport as never);
    tap.onAnyResponse((id) => seen.push(id));
    // SDK 2.x's probe window: save, replace, restore.
    const saved = transport.onmessage;
    transport.onmessage = () => undefined;
    transport.onmessage?.({ jsonrpc: "2.0", id: "probe", result: {} });
    transport.onmessage = saved;
    // Protocol.connect: chain the pre-set handler inside its own.
    const previous = transport.onmessage;
    const handled: unknown[] = [];
    transport.onmessage = (m) => {
      previous?.(m);
      handled.push(m);
    };
    transport.onmessage?.({ jsonrpc: "2.0", id: 1, result: {} });
    expect(seen).toEqual(["probe", 1]);
    expect(preset).toHaveLength(1); // the probe reply never reached the caller's handler (nor the SDK's)
    expect(handled).toHaveLength(1);
  });
});

describe("modern capabilities and versions", () => {
  it("an extension is listed as extensions.<id>; the tasks extension is also the feature 'tasks'", () => {
    const paths = capabilityPaths({ tools: {}, extensions: { "io.modelcontextprotocol/tasks": {} } });
    expect(withTasksFeature(paths)).toEqual([
      "tools",
      "extensions",
      "extensions.io.modelcontextprotocol/tasks",
      "tasks",
    ]);
    expect(withTasksFeature(["tools"])).toEqual(["tools"]);
  });

  it("what a 2.x client offers follows its negotiation mode", () => {
    expect(v2Protocol({})).toMatchObject({ era: "legacy", requestedVersion: "2025-11-25" });
    expect(v2Protocol({ versionNegotiation: { mode: { pin: "2026-07-28" } } })).toEqual({
      era: "modern",
      requestedVersion: "2026-07-28",
      clientSupportedVersions: ["2026-07-28"],
    });
    const auto = v2Protocol({ versionNegotiation: { mode: "auto" } });
    expect(auto.requestedVersion).toBe("2026-07-28");
    expect(auto.clientSupportedVersions.slice(0, 2)).toEqual(["2026-07-28", "2025-11-25"]);
    // A modern-only list leaves nothing to fall back to.
    expect(
      v2Protocol({ versionNegotiation: { mode: "auto" }, supportedProtocolVersions: ["2026-07-28"] })
        .clientSupportedVersions,
    ).toEqual(["2026-07-28"]);
  });
});
