// A git ref's production build for before/after benches: exported with `git archive` into a throwaway folder under the
// system temp dir (kept, and reused by the next invocation for the same commit), node_modules hard-linked from this
// checkout, its Prisma client generated from its own schema, its own `npm run build` (Next.js and, where the ref has
// one, the app server with its fast lanes: a baseline started by `next start` alone would run without them and
// compare another server); then started on a database migrated by its own migrations, with an ingestion key made by
// its own CLI.
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startAppIn } from "../../tests/support/app-server";

const root = path.resolve(import.meta.dirname, "../..");

/** The folder holding `ref`'s build, built now unless an earlier invocation left it. */
export function baselineBuild(ref: string): { dir: string; commit: string } {
  const commit = execFileSync("git", ["rev-parse", "--verify", `${ref}^{commit}`], {
    cwd: root,
    encoding: "utf8",
  }).trim();
  const dir = path.join(tmpdir(), `receipt-baseline-${commit.slice(0, 12)}`);
  // Written once the whole build succeeded: a folder left by a failed or older build is built again.
  const built = path.join(dir, ".receipt-baseline-built");
  if (existsSync(built)) return { dir, commit };
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
  execFileSync("npm", ["run", "--silent", "build"], { cwd: dir, stdio: "inherit" });
  writeFileSync(built, `${commit}\n`);
  return { dir, commit };
}

/** The build in `dir` started on `databaseUrl` (an empty database), as the tests start the app. */
export async function startBaselineApp(
  dir: string,
  databaseUrl: string,
  appEnv: Record<string, string> = {},
) {
  const env = { ...process.env, DATABASE_URL: databaseUrl, NEXT_TELEMETRY_DISABLED: "1" };
  const tsx = (args: string[]) =>
    execFileSync(process.execPath, ["--import", "tsx", ...args], { cwd: dir, env, encoding: "utf8" });
  tsx(["scripts/db-migrate.ts"]);
  const key = tsx(["scripts/keys.ts", "create", "--name", "bench-baseline", "--scope", "ingest"]).trim();
  // On a loaded machine the first answer of a cold build can take longer than the tests allow.
  const app = await startAppIn(dir, databaseUrl, appEnv, 120_000);
  return { baseUrl: app.baseUrl, key, appPid: app.process.pid as number, stop: app.stop };
}
