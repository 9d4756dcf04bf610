import { createHash } from "node:crypto";
import type { ProblemTuple } from "./types";

/** A problem's stable key: a hash of its grouping tuple (nulls kept apart from empty strings). Server-side only. */
export function problemKey(tuple: ProblemTuple): string {
  const canonical = JSON.stringify([tuple.server, tuple.tool, tuple.state, tuple.reason]);
  return createHash("sha256").update(canonical).digest("hex").slice(0, 32);
}

export const PROBLEM_KEY_PATTERN = /^[0-9a-f]{32}$/;
