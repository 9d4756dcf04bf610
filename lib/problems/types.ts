import type { State } from "@/lib/contract";
import type { AssigneeView } from "@/lib/dashboard/api-types";

// The problems API's shapes, shared by the server (which declares them) and the dashboard.

export const PROBLEM_WINDOWS = ["24h", "7d", "30d"] as const;
export type ProblemWindow = (typeof PROBLEM_WINDOWS)[number];

export const PROBLEM_STATUSES = ["open", "resolved", "all"] as const;
export type ProblemStatusFilter = (typeof PROBLEM_STATUSES)[number];

export const PROBLEM_SORTS = ["last_seen", "count"] as const;
export type ProblemSort = (typeof PROBLEM_SORTS)[number];

/** What identifies a problem: chains with the same server, tool, state and deciding reason (reasons[0]). */
export type ProblemTuple = {
  server: string | null;
  tool: string | null;
  state: State;
  reason: string | null;
};

export type ProblemResolution = { resolvedAt: string; resolvedBy: string };

/** open: never resolved or reopened; resolved: no chain seen since; regressed: a chain came back after. */
export type ProblemStatus = "open" | "resolved" | "regressed";

/**
 * Distinct sessions are counted among each problem's newest this many chains of the window, no further: each is a
 * walk of that many index entries, for every problem on the page (docs/BENCHMARKS.md, problems at 10 M chains).
 */
export const PROBLEM_SESSION_SAMPLE = 500;

export type Problem = ProblemTuple & {
  key: string;
  count: number;
  /** Distinct sessions among the problem's chains; a lower bound when `sessionsCapped` (shown as "N+"). */
  sessions: number;
  /** Sessions were counted among the problem's newest PROBLEM_SESSION_SAMPLE chains only. */
  sessionsCapped: boolean;
  /** The earliest and the latest observedAt among the problem's chains in the window (the agents' clocks). */
  firstSeen: string;
  lastSeen: string;
  /** Chains last seen in each bucket of the window, oldest first. */
  trend: number[];
  status: ProblemStatus;
  resolution: ProblemResolution | null;
  /** Who owns the problem (a responder or admin), null when nobody does. */
  assignee: AssigneeView | null;
};

export type ProblemsPage = {
  window: ProblemWindow;
  since: string;
  bucketMs: number;
  problems: Problem[];
  /** More problems matched than the page holds. */
  truncated: boolean;
};

export type ProblemResolutionResult = {
  key: string;
  status: ProblemStatus;
  resolution: ProblemResolution | null;
};
