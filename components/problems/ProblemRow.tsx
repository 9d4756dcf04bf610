"use client";

import Link from "next/link";
import { useState } from "react";
import type { LifecycleOutcome } from "@/lib/problems/lifecycle";
import { formatCount } from "@/lib/dashboard/format";
import { reasonText } from "@/lib/dashboard/reason-text";
import { PROBLEM_SESSION_SAMPLE, type Problem } from "@/lib/problems/types";
import { useProblemAction, useProblemAssignee } from "../api/problems";
import { useRoleAllows } from "../auth/CurrentUser";
import { roleReason } from "../auth/RoleGate";
import { StateBadge } from "../state/StateBadge";
import { AssigneeName, AssigneePicker } from "../team/AssigneePicker";
import { ErrorState } from "../ui/StatusViews";
import { Time } from "../ui/Time";
import styles from "./Problems.module.css";
import { ResolveConfirm } from "./ResolveConfirm";
import { Sparkline } from "./Sparkline";

/** The chain list filtered to the problem's chains over the same window. */
export function problemChainsHref(problem: Problem, since: string): string {
  const query = new URLSearchParams({ state: problem.state, since });
  if (problem.server) query.set("server", problem.server);
  if (problem.tool) query.set("tool", problem.tool);
  if (problem.reason) query.set("reason", problem.reason);
  return `/chains?${query}`;
}

/**
 * One problem: what it is, how much and since when, its trend, its owner, and resolve (after saying what hangs
 * below it) / reopen. `selected`/`onSelect`: the bulk resolve's checkbox; `onResolved`: what the resolve did.
 */
export function ProblemRow({
  problem,
  since,
  selected,
  onSelect,
  onResolved,
}: {
  problem: Problem;
  since: string;
  selected: boolean;
  onSelect: (selected: boolean) => void;
  onResolved: (outcome: LifecycleOutcome) => void;
}) {
  const action = useProblemAction();
  const owner = useProblemAssignee(problem.key);
  const [confirming, setConfirming] = useState(false);
  const mayRespond = useRoleAllows("responder");
  const title = problem.reason ? reasonText(problem.reason).title : "No reason given";
  const resolved = problem.status === "resolved";
  const resolve = (cascade: boolean) =>
    action.mutate(
      { key: problem.key, action: "resolve", cascade },
      {
        onSuccess: (answer) => {
          setConfirming(false);
          if (answer.message && answer.resolved) {
            onResolved({ message: answer.message, resolved: answer.resolved, undo: answer.undo ?? null });
          }
        },
      },
    );
  return (
    <li className={styles.row} data-problem-key={problem.key} data-status={problem.status}>
      <div className={styles.what}>
        <div className={styles.titleLine}>
          {mayRespond && (
            <label className={styles.select}>
              <input
                type="checkbox"
                checked={selected}
                onChange={(event) => onSelect(event.target.checked)}
                aria-label={`Select ${title} on ${problem.server ?? "no server"}`}
              />
            </label>
          )}
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
        {confirming ? (
          <ResolveConfirm
            keys={[problem.key]}
            busy={action.isPending}
            onConfirm={resolve}
            onCancel={() => setConfirming(false)}
          />
        ) : (
          <button
            type="button"
            className="button small"
            disabled={action.isPending || !mayRespond}
            title={mayRespond ? undefined : roleReason("responder", "resolve and reopen problems")}
            onClick={() =>
              resolved ? action.mutate({ key: problem.key, action: "reopen" }) : setConfirming(true)
            }
          >
            {resolved ? "Reopen" : "Resolve"}
          </button>
        )}
        {action.isError && <ErrorState error={action.error} what={resolved ? "reopening" : "resolving"} />}
        <div className={styles.owner}>
          {mayRespond ? (
            <AssigneePicker
              assignee={problem.assignee}
              busy={owner.isPending}
              onAssign={(assigneeId) => owner.mutate({ action: "assign", assigneeId })}
              onUnassign={() => owner.mutate({ action: "unassign" })}
            />
          ) : (
            <AssigneeName assignee={problem.assignee} formerOwner={null} />
          )}
          {owner.isError && <ErrorState error={owner.error} what="assigning" />}
        </div>
      </div>
    </li>
  );
}
