import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";

// `npm install` on the Node versions the README names prints no EBADENGINE warning (issue 41 §2): every package the
// lock installs on this platform accepts the lowest of each supported line, and package.json's engines say the same.
const root = path.resolve(import.meta.dirname, "../..");
const semver = createRequire(import.meta.url)("semver") as {
  satisfies: (version: string, range: string) => boolean;
};
const SUPPORTED_FLOORS = ["20.19.0", "22.12.0", "24.0.0"];

type LockEntry = {
  engines?: { node?: string };
  os?: string[];
  cpu?: string[];
  libc?: string[];
  link?: boolean;
  resolved?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};
const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8")) as {
  packages: Record<string, LockEntry>;
};
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
  engines: { node: string };
};

const report = process.report.getReport() as { header?: { glibcVersionRuntime?: string } };
const libc = report.header?.glibcVersionRuntime ? "glibc" : "musl";

/** npm skips (without an engine check) an optional package built for another os, cpu or libc, and what it needs. */
function buildsHere(entry: LockEntry): boolean {
  const allows = (list: string[] | undefined, value: string) =>
    !list || list.includes(value) || list.every((item) => item.startsWith("!") && item !== `!${value}`);
  return (
    allows(entry.os, process.platform) &&
    allows(entry.cpu, process.arch) &&
    (process.platform !== "linux" || allows(entry.libc, libc))
  );
}

/** Where Node finds `name` from the package at `from`: its own node_modules, then each parent's. */
function resolve(from: string, name: string): string | undefined {
  for (let dir = from; ; ) {
    const candidate = `${dir ? `${dir}/` : ""}node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (!dir) return undefined;
    const parent = dir.lastIndexOf("/node_modules/");
    dir = parent < 0 ? "" : dir.slice(0, parent);
  }
}

/** The lock's packages `npm ci` installs on this machine, walked from the root (links followed). */
function installedHere(): Map<string, LockEntry> {
  const installed = new Map<string, LockEntry>();
  const visit = (location: string, withDev: boolean) => {
    const entry = lock.packages[location];
    if (!entry || installed.has(location)) return;
    installed.set(location, entry);
    if (entry.link && entry.resolved) return visit(entry.resolved, false);
    const names = [
      ...Object.keys(entry.dependencies ?? {}),
      ...Object.keys(entry.optionalDependencies ?? {}),
      ...(withDev ? Object.keys(entry.devDependencies ?? {}) : []),
      // npm installs peers too, unless marked optional
      ...Object.keys(entry.peerDependencies ?? {}).filter(
        (name) => !entry.peerDependenciesMeta?.[name]?.optional,
      ),
    ];
    for (const name of names) {
      const found = resolve(location, name);
      if (found && buildsHere(lock.packages[found] as LockEntry)) visit(found, false);
    }
  };
  visit("", true);
  // The workspaces (packages/*), with their own dev dependencies.
  for (const location of Object.keys(lock.packages))
    if (location.startsWith("packages/") && !location.includes("node_modules")) visit(location, true);
  installed.delete("");
  return installed;
}

describe("Node versions", () => {
  it.each(SUPPORTED_FLOORS)("every installed package accepts Node %s", (version) => {
    const refusing = [...installedHere()]
      .filter(([, entry]) => entry.engines?.node)
      .filter(([, entry]) => !semver.satisfies(version, entry.engines?.node as string))
      .map(([name, entry]) => `${name} (${entry.engines?.node})`);
    expect(refusing).toEqual([]);
  });

  it("the walk finds what npm installs, and not what it skips here", () => {
    const installed = installedHere();
    expect(installed.has("node_modules/next")).toBe(true);
    expect(installed.has("node_modules/@prisma/streams-local")).toBe(true); // the stand-in, tools/prisma-streams-local
    expect(installed.get("node_modules/@prisma/streams-local")?.link).toBe(true);
    expect(installed.has("node_modules/@napi-rs/wasm-runtime")).toBe(false); // only for a wasm32 build
  });

  it("package.json's engines accept exactly the supported lines", () => {
    for (const version of SUPPORTED_FLOORS) expect(semver.satisfies(version, pkg.engines.node)).toBe(true);
    for (const version of ["20.18.0", "22.11.0", "23.5.0"])
      expect(semver.satisfies(version, pkg.engines.node)).toBe(false);
  });

  it("the README names the same versions", () => {
    expect(readFileSync(path.join(root, "README.md"), "utf8")).toContain("Node.js 20.19+, 22.12+ or 24+");
  });
});
