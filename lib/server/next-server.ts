import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");
const nextBin = path.join(root, "node_modules/next/dist/bin/next");

/**
 * How the app's Node process runs, wherever it is started (`npm start`, the tests, the benches), so what is measured
 * is what ships. A 1000-record batch is megabytes of parsed records that live across the request's database round
 * trips: in Node's default young generation (16 MB semi-spaces) they outlive two scavenges and are promoted, and the
 * old generation then marks and compacts them. 64 MB keeps them young, which lowered the app's CPU a record in
 * alternating runs of the ingestion bench at batch 1000.
 */
export const NEXT_NODE_FLAGS = ["--max-semi-space-size=64"];

/** Where `npm run build` puts the production server (scripts/app-server.ts, bundled), relative to a checkout. */
export const APP_SERVER = ".next/receipt/app-server.mjs";

/**
 * Runs the app under NEXT_NODE_FLAGS, from the project root or from `dir`, another checkout with its own node_modules
 * (bench:ingest's baseline build): `start` runs the production server the build made (APP_SERVER: Next.js behind the
 * fast lanes, taking `next start`'s options) when that checkout has one; `dev`, and an older checkout's `start`, the
 * Next.js CLI.
 */
export function spawnNext(args: string[], options: SpawnOptions = {}, dir = root): ChildProcess {
  const [command, ...rest] = args;
  const server = path.join(dir, APP_SERVER);
  if (command === "start" && existsSync(server)) {
    const env = { ...(options.env ?? process.env), NODE_ENV: "production" as const };
    return spawn(process.execPath, [...NEXT_NODE_FLAGS, server, ...rest], { cwd: dir, ...options, env });
  }
  const bin = dir === root ? nextBin : path.join(dir, "node_modules/next/dist/bin/next");
  return spawn(process.execPath, [...NEXT_NODE_FLAGS, bin, ...args], { cwd: dir, ...options });
}
