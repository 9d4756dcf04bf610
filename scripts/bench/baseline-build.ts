// A git ref's production build for before/after benches: exported with `git archive` into a throwaway folder under the
// system temp dir (kept, and reused by the next invocation for the same commit), node_modules hard-linked from this
// checkout, its Prisma client generated from its own schema, `next build`; then started on a database migrated by its
// own migrations, with an ingestion key made by its own CLI.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "../../lib/server/db/embedded";
import { NEXT_NODE_FLAGS } from "../../lib/server/next-server";

const root = path.resolve(import.meta.dirname, "../..");

/** The folder holding `ref`'s build, built now unless an earlier invocation left it. */
export function baselineBuild(ref: string): { dir: string; commit: string } {
  const commit = execFileSync("git", ["rev-parse", "--verify", `${ref}^{commit}`], {
    cwd: root,
    encoding: "utf8",
  }).trim();
  const dir = path.join(tmpdir(), `receipt-baseline-${commit.slice(0, 12)}`);
  if (existsSync(path.join(dir, ".next/BUILD_ID"))) return { dir, commit };
  mkdirSync(dir, { recursive: true });
  execFileSync("sh", ["-c", `git archive ${commit} | tar -x -C '${dir}'`], { cwd: root, stdio: "inherit" });
  // Turbopack resolves nothing outside the project folder, so a symlink will not do: hard links, no copy of the bytes.
  if (!lstatSync(path.join(dir, "node_modules"), { throwIfNoEntry: false })?.isDirectory()) {
    rmSync(path.join(dir, "node_modules"), { recursive: true, force: true });
    execFileSync("cp", ["-al", path.join(root, "node_modules"), path.join(dir, "node_modules")]);
  }
  const run = (args: string[]) => execFileSync(process.execPath, args, { cwd: dir, stdio: "inherit" });
  console.error(`baseline ${commit.slice(0, 12)}: prisma generate, next build in ${dir}…`);
  run(["--import", "tsx", "scripts/prisma-generate.ts"]);
  rmSync(path.join(dir, ".next"), { recursive: true, force: true }); // a failed build's lock and leftovers
  run([path.join(dir, "node_modules/next/dist/bin/next"), "build"]);
  return { dir, commit };
}

/** The build in `dir` started on `databaseUrl` (an empty database), as the tests start the app. */
export async function startBaselineApp(dir: string, databaseUrl: string) {
  const env = { ...process.env, DATABASE_URL: databaseUrl, NEXT_TELEMETRY_DISABLED: "1" };
  const tsx = (args: string[]) =>
    execFileSync(process.execPath, ["--import", "tsx", ...args], { cwd: dir, env, encoding: "utf8" });
  tsx(["scripts/db-migrate.ts"]);
  const key = tsx(["scripts/keys.ts", "create", "--name", "bench-baseline", "--scope", "ingest"]).trim();
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [
      ...NEXT_NODE_FLAGS,
      path.join(dir, "node_modules/next/dist/bin/next"),
      "start",
      "--port",
      String(port),
      "--hostname",
      "127.0.0.1",
      "--keepAliveTimeout",
      "70000",
    ],
    { cwd: dir, env, stdio: "ignore" },
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the baseline app exited (${child.exitCode})`);
    if (
      await fetch(`${baseUrl}/api/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (i > 1200) throw new Error("the baseline app did not become healthy");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    baseUrl,
    key,
    appPid: child.pid as number,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
