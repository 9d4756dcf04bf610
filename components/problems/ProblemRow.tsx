"use client";

import Link from "next/link";
import { formatCount } from "@/lib/dashboard/format";
import { reasonText } from "@/lib/dashboard/reason-text";
import { PROBLEM_SESSION_SAMPLE, type Problem } from "@/lib/problems/types";
import { useProblemAction } from "../api/problems";
import { useRoleAllows } from "../auth/CurrentUser";
import { roleReason } from "../auth/RoleGate";
import { StateBadge } from "../state/StateBadge";
import { ErrorState } from "../ui/StatusViews";
import { Time } from "../ui/Time";
import styles from "./Problems.module.css";
import { Sparkline } from "./Sparkline";

/** The chain list filtered to the problem's chains over the same window. */
export function problemChainsHref(problem: Problem, since: string): string {
  const query = new URLSearchParams({ state: problem.state, since });
  if (problem.server) query.set("server", problem.server);
  if (problem.tool) query.set("tool", problem.tool);
  if (problem.reason) query.set("reason", problem.reason);
  return `/chains?${query}`;
}

/** One problem: what it is, how much and since when, its trend, and resolve / reopen. */
export function ProblemRow({ problem, since }: { problem: Problem; since: string }) {
  const action = useProblemAction();
  const mayRespond = useRoleAllows("responder");
  const title = problem.reason ? reasonText(problem.reason).title : "No reason given";
  const resolved = problem.status === "resolved";
  return (
    <li className={styles.row} data-problem-key={problem.key} data-status={problem.status}>
      <div className={styles.what}>
        <div className={styles.titleLine}>
          <StateBadge state={problem.state} />
          {problem.status === "regressed" && (
            <span
              className={styles.regressed}
              title="Resolved earlier; a chain came back after the resolution"
            >
              Regressed
            </span>
          )}
          {resolved && <span className={styles.resolvedMark}>Resolved</span>}
        </div>
        <Link href={problemChainsHref(problem, since)} className={styles.title}>
          {title}
        </Link>
        <p className={styles.where}>
          <strong>{problem.server ?? "no server"}</strong>
          {" · "}
          <span className="mono">{problem.tool ?? "no tool"}</span>
          {problem.reason && <span className={`mono ${styles.reason}`}>{problem.reason}</span>}
        </p>
        <p className={`muted ${styles.meta}`}>
          <span>
            <strong>{formatCount(problem.count)}</strong> {problem.count === 1 ? "chain" : "chains"}
          </span>
          <span
            title={
              problem.sessionsCapped
                ? `Distinct sessions among the problem's newest ${formatCount(PROBLEM_SESSION_SAMPLE)} chains: there may be more`
                : "Distinct sessions among the problem's chains in the window"
            }
          >
            <strong>
              {formatCount(problem.sessions)}
              {problem.sessionsCapped ? "+" : ""}
            </strong>{" "}
            {problem.sessions === 1 && !problem.sessionsCapped ? "session" : "sessions"}
          </span>
          <span>
            first <Time iso={problem.firstSeen} />
          </span>
          <span>
            last <Time iso={problem.lastSeen} />
          </span>
          {problem.resolution && (
            <span>
              resolved by {problem.resolution.resolvedBy} <Time iso={problem.resolution.resolvedAt} />
            </span>
          )}
        </p>
      </div>
      <Sparkline trend={problem.trend} label={`Chains per interval for ${title}`} />
      <div className={styles.actions}>
        <button
          type="button"
          className="button small"
          disabled={action.isPending || !mayRespond}
          title={mayRespond ? undefined : roleReason("responder", "resolve and reopen problems")}
          onClick={() => action.mutate({ key: problem.key, action: resolved ? "reopen" : "resolve" })}
        >
          {resolved ? "Reopen" : "Resolve"}
        </button>
        {action.isError && <ErrorState error={action.error} what={resolved ? "reopening" : "resolving"} />}
      </div>
    </li>
  );
}
