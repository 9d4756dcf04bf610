import { readFileSync } from "node:fs";
import path from "node:path";
import type { HealthRecord } from "@/lib/contract";

export type SeedCase = { name: string; expectedState: string; expectedReason: string; record: HealthRecord };

const file = path.resolve(import.meta.dirname, "../fixtures/seed-cases.json");

/** A fresh copy of the nine seed cases each call, safe to mutate. */
export function seedCases(): SeedCase[] {
  return (JSON.parse(readFileSync(file, "utf8")) as { cases: SeedCase[] }).cases;
}
