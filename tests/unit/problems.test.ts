import { describe, expect, it } from "vitest";
import {
  assembleRankedProblems,
  type ProblemBucketRow,
  type ProblemSessionsRow,
} from "@/lib/problems/assemble";
import { PROBLEM_KEY_PATTERN, problemKey } from "@/lib/problems/problem-key";
import { sparklinePoints } from "@/lib/problems/sparkline";
import { problemStatus } from "@/lib/problems/status";
import { bucketIndex, PROBLEM_WINDOW_SPEC, problemWindowStart } from "@/lib/problems/windows";
import { assembleProblems, matchesStatus } from "@/tests/support/problems-oracle";

const HOUR = 3_600_000;
const NOW = Date.parse("2026-12-01T10:30:00Z");

describe("problem windows", () => {
  it.each(["24h", "7d", "30d"] as const)("%s: whole buckets, the last one holding now", (window) => {
    const { bucketMs, buckets } = PROBLEM_WINDOW_SPEC[window];
    const since = problemWindowStart(window, NOW).getTime();
    expect(since % bucketMs).toBe(0);
    expect(bucketIndex(NOW, since, window)).toBe(buckets - 1);
    expect(bucketIndex(since, since, window)).toBe(0);
  });

  it("clamps instants outside the window to its first and last bucket", () => {
    const since = problemWindowStart("24h", NOW).getTime();
    expect(since).toBe(Date.parse("2026-11-30T11:00:00Z"));
    expect(bucketIndex(since - HOUR, since, "24h")).toBe(0);
    expect(bucketIndex(NOW + 5 * HOUR, since, "24h")).toBe(23);
    expect(bucketIndex(since + 2.5 * HOUR, since, "24h")).toBe(2);
  });
});

describe("problem keys", () => {
  const tuple = {
    server: "reports",
    tool: "write",
    state: "effect_unknown" as const,
    reason: "effect.unreconciled",
  };
  it("are stable hex of the tuple, and differ when any part differs (null is not the empty string)", () => {
    expect(problemKey(tuple)).toMatch(PROBLEM_KEY_PATTERN);
    expect(problemKey({ ...tuple })).toBe(problemKey(tuple));
    const others = [
      { ...tuple, server: "other" },
      { ...tuple, tool: null },
      { ...tuple, tool: "" },
      { ...tuple, state: "tool_failed" as const },
      { ...tuple, reason: null },
    ].map(problemKey);
    expect(new Set([problemKey(tuple), ...others]).size).toBe(6);
  });
});

describe("problem status", () => {
  const resolution = { resolvedAt: new Date(NOW).toISOString(), resolvedBy: "admin" };
  it("open without a resolution, resolved until a chain is written after it, then regressed", () => {
    expect(problemStatus(NOW, null)).toBe("open");
    expect(problemStatus(NOW - 1, resolution)).toBe("resolved");
    expect(problemStatus(NOW, resolution)).toBe("resolved");
    expect(problemStatus(NOW + 1, resolution)).toBe("regressed");
  });
  it("the open filter lists regressions, the resolved filter only resolved problems", () => {
    expect(matchesStatus("regressed", "open")).toBe(true);
    expect(matchesStatus("resolved", "open")).toBe(false);
    expect(matchesStatus("regressed", "resolved")).toBe(false);
    expect(matchesStatus("resolved", "all")).toBe(true);
  });
});

describe("assembling problems", () => {
  const since = problemWindowStart("24h", NOW).getTime();
  const base = {
    server: "reports",
    tool: "write",
    state: "effect_unknown" as const,
    reason: "effect.unreconciled",
  };
  const bucket = (over: Partial<ProblemBucketRow>): ProblemBucketRow => ({
    ...base,
    bucketStartMs: since + HOUR,
    count: 1,
    firstSeenMs: since + HOUR,
    lastSeenMs: since + HOUR,
    lastWrittenMs: since + HOUR,
    ...over,
  });
  const mail = {
    server: "mail",
    tool: "send",
    state: "false_success" as const,
    reason: "outcome.verifier_failed",
  };
  const rows: ProblemBucketRow[] = [
    bucket({}),
    bucket({
      bucketStartMs: since + 5 * HOUR,
      count: 2,
      lastSeenMs: since + 5.5 * HOUR,
      lastWrittenMs: since + 5.5 * HOUR,
    }),
    // A chain observed after the window's last bucket (an agent's clock ahead) counts in that bucket.
    bucket({ ...mail, bucketStartMs: since + 30 * HOUR, count: 9, firstSeenMs: since + 2 * HOUR }),
  ];
  const sessions: ProblemSessionsRow[] = [
    { ...base, sessions: 2 },
    { ...mail, sessions: 4 },
  ];
  const options = {
    window: "24h" as const,
    sinceMs: since,
    status: "open" as const,
    sort: "last_seen" as const,
  };

  it("one problem per tuple with its totals and its trend over every bucket of the window", () => {
    const { problems, truncated } = assembleProblems(rows, sessions, new Map(), { ...options, limit: 10 });
    expect(truncated).toBe(false);
    const reports = problems.find((problem) => problem.server === "reports");
    expect(reports).toMatchObject({ count: 3, sessions: 2, status: "open", resolution: null });
    expect(reports?.trend).toHaveLength(24);
    expect(reports?.trend[1]).toBe(1);
    expect(reports?.trend[5]).toBe(2);
    expect(reports?.trend.reduce((sum, n) => sum + n, 0)).toBe(3);
    expect(reports?.firstSeen).toBe(new Date(since + HOUR).toISOString());
    expect(reports?.lastSeen).toBe(new Date(since + 5.5 * HOUR).toISOString());
    const late = problems.find((problem) => problem.server === "mail");
    expect(late).toMatchObject({ count: 9, sessions: 4 });
    expect(late?.trend[23]).toBe(9);
  });

  it("sorts by count or by last seen, filters by text, and says when the page is cut", () => {
    const byCount = assembleProblems(rows, sessions, new Map(), {
      ...options,
      sort: "count",
      limit: 10,
    }).problems;
    expect(byCount.map((problem) => problem.server)).toEqual(["mail", "reports"]);
    const text = assembleProblems(rows, sessions, new Map(), {
      ...options,
      text: "VERIFIER",
      limit: 10,
    }).problems;
    expect(text.map((problem) => problem.server)).toEqual(["mail"]);
    const cut = assembleProblems(rows, sessions, new Map(), { ...options, sort: "count", limit: 1 });
    expect(cut).toMatchObject({ truncated: true, problems: [{ server: "mail" }] });
  });

  it("a resolved problem leaves the open list; a chain written after its resolution brings it back as regressed", () => {
    const key = problemKey(base);
    const resolvedAt = new Date(since + 6 * HOUR).toISOString();
    const resolutions = new Map([[key, { resolvedAt, resolvedBy: "admin" }]]);
    expect(
      assembleProblems(rows, sessions, resolutions, { ...options, limit: 10 }).problems.map((p) => p.key),
    ).not.toContain(key);
    expect(
      assembleProblems(rows, sessions, resolutions, { ...options, status: "resolved", limit: 10 }).problems,
    ).toMatchObject([{ key, status: "resolved", resolution: { resolvedBy: "admin" } }]);
    const later = rows.map((row) =>
      row.server === "reports" ? { ...row, lastWrittenMs: since + 7 * HOUR } : row,
    );
    expect(assembleProblems(later, sessions, resolutions, { ...options, limit: 10 }).problems).toContainEqual(
      expect.objectContaining({ key, status: "regressed" }),
    );
  });
});

describe("a page ranked by the database", () => {
  const since = problemWindowStart("24h", NOW).getTime();
  const tuple = { server: "reports", tool: "write", state: "effect_unknown" as const, reason: null };
  const ranked = (server: string, lastWrittenMs: number, resolvedAt?: number) => ({
    ...tuple,
    server,
    key: problemKey({ ...tuple, server }),
    count: 3,
    firstSeenMs: since,
    lastSeenMs: since + HOUR,
    lastWrittenMs,
    resolution: resolvedAt ? { resolvedAt: new Date(resolvedAt).toISOString(), resolvedBy: "admin" } : null,
  });

  it("keeps the database's order, cuts to the limit, puts the trend on its problem and derives the status", () => {
    const rows = [
      ranked("b", since + 2 * HOUR, since + HOUR),
      ranked("a", since, since + HOUR),
      ranked("c", 0),
    ];
    const trend = [
      { ...tuple, server: "a", bucketStartMs: since + HOUR, count: 2 },
      { ...tuple, server: "a", bucketStartMs: since + 40 * HOUR, count: 1 },
      { ...tuple, server: "c", bucketStartMs: since, count: 5 },
    ];
    const page = assembleRankedProblems(rows, trend, { window: "24h", sinceMs: since, limit: 2 });
    expect(page.truncated).toBe(true);
    expect(page.problems.map((p) => [p.server, p.status])).toEqual([
      ["b", "regressed"],
      ["a", "resolved"],
    ]);
    expect(page.problems[1]?.trend[1]).toBe(2);
    expect(page.problems[1]?.trend[23]).toBe(1);
    expect(page.problems[0]?.trend.every((n) => n === 0)).toBe(true);
    expect(assembleRankedProblems(rows, [], { window: "24h", sinceMs: since, limit: 3 }).truncated).toBe(
      false,
    );
  });
});

describe("sparkline points", () => {
  it("spans the box: the highest count at the top, zero at the bottom", () => {
    expect(sparklinePoints([0, 2, 1], 100, 20)).toBe("0,20 50,0 100,10");
  });
  it("draws a single bucket as a flat line and nothing for no buckets", () => {
    expect(sparklinePoints([3], 60, 10)).toBe("0,0 60,0");
    expect(sparklinePoints([], 60, 10)).toBe("");
  });
});
