import type { RankedProblemRow } from "@/lib/problems/assemble";
import { PROBLEM_KEY_PATTERN } from "@/lib/problems/problem-key";
import { problemWindowStart } from "@/lib/problems/windows";
import { rankProblems } from "../db/problem-ranking";

/** The problems with these keys among the longest window's, by key (a key of no problem there is missing). */
export async function findProblems(
  keys: readonly string[],
  now: Date,
): Promise<Map<string, RankedProblemRow>> {
  const wellFormed = [...new Set(keys.filter((key) => PROBLEM_KEY_PATTERN.test(key)))];
  if (wellFormed.length === 0) return new Map();
  const since = problemWindowStart("30d", now.getTime());
  const ranked = await rankProblems({
    since,
    status: "all",
    sort: "last_seen",
    limit: wellFormed.length,
    keys: wellFormed,
  });
  return new Map(ranked.map((row) => [row.key, row]));
}
