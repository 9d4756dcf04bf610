import { execFile, execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

export const REPO = resolve(".");
export const PACKAGE_DIR = join(REPO, "packages/collector");
export const EVERYTHING_BIN = join(REPO, "node_modules/.bin/mcp-server-everything");
export const TSC = join(REPO, "node_modules/typescript/bin/tsc");
export const CONSUMER_FIXTURES = join(REPO, "tests/package/consumer");

export type PackResult = {
  tarball: string;
  files: string[];
  unpackedSize: number;
};

/** `npm pack` as a publisher runs it: prepack builds dist/, the tarball lands in `destination`. */
export function packCollector(destination: string): PackResult {
  const output = execFileSync("npm", ["pack", "--json", "--pack-destination", destination], {
    cwd: PACKAGE_DIR,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 120_000,
  });
  const [packed] = JSON.parse(output) as {
    filename: string;
    files: { path: string }[];
    unpackedSize: number;
  }[];
  if (!packed) throw new Error("npm pack printed no package");
  return {
    tarball: join(destination, packed.filename),
    files: packed.files.map((file) => file.path).sort(),
    unpackedSize: packed.unpackedSize,
  };
}

/**
 * A fresh ESM project outside the repository with only `specs` installed (the registry, through the
 * local npm cache when it has them), and the consumer fixtures copied in.
 */
export function tempDir(name: string): string {
  return mkdtempSync(join(tmpdir(), `receipt-${name}-`));
}

export async function freshProject(name: string, specs: string[]): Promise<string> {
  const dir = tempDir(name);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, private: true, type: "module" }));
  await promisify(execFile)(
    "npm",
    ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", "--save-exact", ...specs],
    { cwd: dir, timeout: 180_000 },
  );
  cpSync(CONSUMER_FIXTURES, dir, { recursive: true });
  return dir;
}

/** Runs a command in `cwd`; returns stdout, or throws with stderr in the message. */
export function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): string {
  try {
    return execFileSync(command, args, {
      cwd,
      encoding: "utf8",
      env: { ...process.env, EVERYTHING_BIN, ...env },
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 60_000,
    });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${command} ${args.join(" ")} failed:\n${failed.stdout ?? ""}\n${failed.stderr ?? failed.message}`,
    );
  }
}
