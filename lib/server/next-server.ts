import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
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

/**
 * Runs the Next.js CLI (`start`, `dev`) under NEXT_NODE_FLAGS, from the project root or from `dir`, another checkout
 * with its own node_modules (bench:ingest's baseline build).
 */
export function spawnNext(args: string[], options: SpawnOptions = {}, dir = root): ChildProcess {
  const bin = dir === root ? nextBin : path.join(dir, "node_modules/next/dist/bin/next");
  return spawn(process.execPath, [...NEXT_NODE_FLAGS, bin, ...args], { cwd: dir, ...options });
}
