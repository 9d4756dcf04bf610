import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateRecord } from "@/lib/contract";
import type { CollectorRecord } from "@/packages/collector/src";
import { freshProject, type PackResult, packCollector, run, TSC, tempDir } from "./pack";

// Issue 19 item 1 and 2, as an adopter meets the package: `npm pack`, install the tarball into a
// fresh project beside only an MCP SDK, type-check a consumer (libraries too: skipLibCheck off, so the
// package's .d.ts must not name the SDK that is not installed), run it against server-everything.
const SDK_V1 = "@modelcontextprotocol/sdk@1.32.2";
const SDK_V2 = "@modelcontextprotocol/client@2.4.0";
const FIVE_MB = 5 * 1024 * 1024;

type Verdict = { state: string; reasons: string[]; retrySafe?: boolean };
type ConsumerOutput = {
  echo: { record: CollectorRecord; state: Verdict };
  crashed: { record: CollectorRecord; state: Verdict; crashMs: number };
  sunk: number;
};

function directoryBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? directoryBytes(path) : statSync(path).size;
  }
  return total;
}

function expectContractValid(record: CollectorRecord): void {
  const result = validateRecord(record);
  expect(result.ok, JSON.stringify(result)).toBe(true);
}

let packDir: string;
let packed: PackResult;
/** Beside SDK 1.x and a second, adopter-owned copy of it ("own-sdk"), with types for the consumer. */
let project: string;
/** Beside SDK 2.x only (and Node's types, for the type-check). */
let v2Project: string;
beforeAll(async () => {
  packDir = tempDir("pack");
  packed = packCollector(packDir);
  [project, v2Project] = await Promise.all([
    freshProject("consumer", [packed.tarball, SDK_V1, `own-sdk@npm:${SDK_V1}`, "@types/node@20.19.43"]),
    freshProject("v2-only", [packed.tarball, SDK_V2, "@types/node@20.19.43"]),
  ]);
});
afterAll(() => {
  for (const dir of [packDir, project, v2Project]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("@receipt/collector packed and installed outside the repository", () => {
  it("ships the bundle, its types, README and CHANGELOG; SDKs as optional peers, nothing else at run time", () => {
    expect(packed.files).toEqual([
      "CHANGELOG.md",
      "README.md",
      "dist/index.d.ts",
      "dist/index.js",
      "dist/v1.d.ts",
      "dist/v1.js",
      "dist/v2.d.ts",
      "dist/v2.js",
      "package.json",
    ]);
    const manifest = JSON.parse(
      readFileSync(join(project, "node_modules/@receipt/collector/package.json"), "utf8"),
    ) as Record<string, unknown>;
    expect(manifest).toMatchObject({
      type: "module",
      types: "./dist/index.d.ts",
      sideEffects: false,
      exports: {
        ".": { types: "./dist/index.d.ts", default: "./dist/index.js" },
        "./v1": { types: "./dist/v1.d.ts", default: "./dist/v1.js" },
        "./v2": { types: "./dist/v2.d.ts", default: "./dist/v2.js" },
      },
      peerDependencies: {
        "@modelcontextprotocol/sdk": expect.any(String),
        "@modelcontextprotocol/client": expect.any(String),
      },
      peerDependenciesMeta: {
        "@modelcontextprotocol/sdk": { optional: true },
        "@modelcontextprotocol/client": { optional: true },
      },
    });
    expect(manifest.dependencies).toBeUndefined();
    // The contract and classifier are bundled in; only the SDKs and node: built-ins stay imports.
    const bundle = readFileSync(join(project, "node_modules/@receipt/collector/dist/index.js"), "utf8");
    const imported = [...bundle.matchAll(/(?:from|import\()\s*"([^"]+)"/g)].map((match) => match[1]);
    expect(
      imported.filter((name) => !name?.startsWith("node:") && !name?.startsWith("@modelcontextprotocol/")),
    ).toEqual([]);
  });

  it("ships a rolled-up main .d.ts that names no SDK, and per-SDK entries that name one SDK each", () => {
    const typesOf = (file: string) =>
      readFileSync(join(project, "node_modules/@receipt/collector/dist", file), "utf8");
    const importsOf = (file: string) =>
      [...typesOf(file).matchAll(/(?:from|import\()\s*["']([^"']+)["']/g)].map((match) => match[1] ?? "");
    expect(importsOf("index.d.ts")).toEqual([]);
    expect(typesOf("index.d.ts")).toMatch(/export declare function createCollector\(/);
    const v1 = importsOf("v1.d.ts");
    expect(v1).toContain("./index.js");
    expect(
      v1.filter((name) => name !== "./index.js" && !name.startsWith("@modelcontextprotocol/sdk/")),
    ).toEqual([]);
    const v2 = importsOf("v2.d.ts");
    expect(v2).toContain("./index.js");
    expect(v2.filter((name) => name !== "./index.js" && name !== "@modelcontextprotocol/client")).toEqual([]);
  });

  it("stays under 5 MB installed besides the SDK", () => {
    const installed = directoryBytes(join(project, "node_modules/@receipt/collector"));
    expect(installed).toBeLessThan(FIVE_MB);
    expect(installed).toBe(packed.unpackedSize);
  });

  it("imports with plain node (ESM)", () => {
    const script =
      'const m = await import("@receipt/collector"); console.log(Object.keys(m).sort().join(","));';
    const names = run(process.execPath, ["--input-type=module", "-e", script], project).trim().split(",");
    expect(names).toEqual(
      expect.arrayContaining([
        "createCollector",
        "MemorySink",
        "ReceiptSink",
        "fileHashVerifier",
        "DeliveryError",
      ]),
    );
    // The per-SDK entry is the main entry under other types: the same functions, not a second copy.
    const same =
      'const [m, v1] = await Promise.all([import("@receipt/collector"), import("@receipt/collector/v1")]);' +
      "console.log(v1.createCollector === m.createCollector && v1.MemorySink === m.MemorySink);";
    expect(run(process.execPath, ["--input-type=module", "-e", same], project).trim()).toBe("true");
  });

  it("type-checks a consumer of the main and /v1 entries (skipLibCheck off, no SDK 2.x) under --module nodenext and --module preserve", () => {
    run(process.execPath, [TSC, "-p", "tsconfig.nodenext.json"], project);
    run(process.execPath, [TSC, "-p", "tsconfig.bundler.json"], project);
  });

  it("records a call through the installed package, and through the adopter's own SDK copy a crash mid-call", () => {
    const output = JSON.parse(run(process.execPath, ["out/consumer.js"], project)) as ConsumerOutput;

    const { echo, crashed } = output;
    expectContractValid(echo.record);
    expect(echo.record.session.transport).toBe("stdio");
    expect(echo.record.session.server?.name).toBe("mcp-servers/everything");
    expect(echo.record.call).toMatchObject({ tool: "echo", response: { kind: "result", isError: false } });
    expect(echo.state).toMatchObject({ state: "unverified", reasons: ["outcome.no_receipt"] });

    // The client and transport came from "own-sdk", not the collector's copy: still seen as stdio,
    // and the server's death is a cancelled request at once, not a call working until its deadline.
    expectContractValid(crashed.record);
    expect(crashed.record.session.transport).toBe("stdio");
    expect(crashed.record.call?.response).toBeUndefined();
    expect(crashed.record.call?.cancelledAt).toEqual(expect.any(String));
    expect(crashed.state).toMatchObject({ state: "effect_unknown", retrySafe: false });
    expect(crashed.state.reasons).toContain("request.cancelled");
    expect(crashed.crashMs).toBeLessThan(10_000);
    expect(output.sunk).toBeGreaterThanOrEqual(4);
  });
});

describe("@receipt/collector with SDK 2.x only", () => {
  it("type-checks a consumer of the main and /v2 entries with skipLibCheck off, without SDK 1.x", () => {
    expect(() =>
      readFileSync(join(v2Project, "node_modules/@modelcontextprotocol/sdk/package.json")),
    ).toThrow();
    run(process.execPath, [TSC, "-p", "tsconfig.v2.json"], v2Project);
    const script =
      'const [m, v2] = await Promise.all([import("@receipt/collector"), import("@receipt/collector/v2")]);' +
      "console.log(v2.createCollector === m.createCollector);";
    expect(run(process.execPath, ["--input-type=module", "-e", script], v2Project).trim()).toBe("true");
  });

  it("imports without SDK 1.x, records SDK 2.x sessions, and names the missing SDK for a 1.x session", () => {
    const output = JSON.parse(run(process.execPath, ["v2-only.mjs"], v2Project)) as {
      record: CollectorRecord;
      state: Verdict;
      v1Error: string;
    };
    expectContractValid(output.record);
    expect(output.record.session.transport).toBe("stdio");
    expect(output.record.call).toMatchObject({ tool: "echo", response: { kind: "result", isError: false } });
    expect(output.state.state).toBe("unverified");
    expect(output.v1Error).toMatch(/@modelcontextprotocol\/sdk \(1\.x\) is not installed/);
  });
});
