"use client";

import Link from "next/link";
import { useCallback, useState } from "react";
import type { LifecycleOutcome } from "@/lib/problems/lifecycle";
import { MAX_BULK_PROBLEMS } from "@/lib/problems/lifecycle";
import { RoleNote } from "../auth/RoleGate";
import { PROBLEM_STATUSES, PROBLEM_WINDOWS, type ProblemSort } from "@/lib/problems/types";
import { DEFAULT_PROBLEM_WINDOW, PROBLEM_WINDOW_SPEC } from "@/lib/problems/windows";
import { useBulkResolve, useProblems } from "../api/problems";
import { EmptyState, ErrorState, LoadingState } from "../ui/StatusViews";
import { useUrlState } from "../ui/use-url-state";
import { ProblemFilters } from "./ProblemFilters";
import { ProblemRow } from "./ProblemRow";
import { ResolvedNotice } from "./ResolvedNotice";
import { ResolveConfirm } from "./ResolveConfirm";
import styles from "./Problems.module.css";

const STATUS_LABEL = { open: "Open", resolved: "Resolved", all: "All" } as const;
const WINDOW_LABEL = { "24h": "24 h", "7d": "7 d", "30d": "30 d" } as const;

/**
 * Problems: chains grouped by server, tool, state and deciding reason, like an error tracker's issues. The URL
 * holds the window, status tab, sort and filters, so a link reproduces the view.
 */
export function ProblemsView() {
  const { params, update } = useUrlState();
  const window = pick(PROBLEM_WINDOWS, params.get("window"), DEFAULT_PROBLEM_WINDOW);
  const status = pick(PROBLEM_STATUSES, params.get("status"), "open");
  const sort: ProblemSort = params.get("sort") === "count" ? "count" : "last_seen";
  const problems = useProblems({
    window,
    status,
    sort,
    state: params.get("state") ?? undefined,
    server: params.get("server") ?? undefined,
    tool: params.get("tool") ?? undefined,
    text: params.get("text") ?? undefined,
    assignee: params.get("assignee") ?? undefined,
  });
  const [selected, setSelected] = useState<string[]>([]);
  const [confirmingBulk, setConfirmingBulk] = useState(false);
  const [outcome, setOutcome] = useState<LifecycleOutcome | null>(null);
  const bulk = useBulkResolve();
  const dismiss = useCallback(() => setOutcome(null), []);
  const onScreen = new Set(problems.data?.problems.map((problem) => problem.key) ?? []);
  const chosen = selected.filter((key) => onScreen.has(key));
  const select = (key: string, on: boolean) =>
    setSelected((keys) => (on ? [...keys.filter((k) => k !== key), key] : keys.filter((k) => k !== key)));
  const resolveSelected = (cascade: boolean) =>
    bulk.mutate(
      { keys: chosen, cascade },
      {
        onSuccess: (answer) => {
          setConfirmingBulk(false);
          setSelected([]);
          setOutcome(answer);
        },
      },
    );
  const linkWith = (changes: Record<string, string>) => {
    const next = new URLSearchParams(params.toString());
    for (const [key, value] of Object.entries(changes)) next.set(key, value);
    return `/problems?${next}`;
  };
  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <h1>Problems</h1>
          <p>Chains that need a person, grouped by server, tool, state and the reason that decided it.</p>
          <RoleNote needs="responder" doing="resolve, reopen and assign problems" />
        </div>
        <nav aria-label="Time window" className={styles.segmented}>
          {PROBLEM_WINDOWS.map((value) => (
            <Link
              key={value}
              href={linkWith({ window: value })}
              aria-current={value === window ? "true" : undefined}
            >
              {WINDOW_LABEL[value]}
            </Link>
          ))}
        </nav>
      </div>
      <ProblemFilters params={params} onChange={update} />
      <div className={styles.toolbar}>
        <nav aria-label="Problem status" className={styles.segmented}>
          {PROBLEM_STATUSES.map((value) => (
            <Link
              key={value}
              href={linkWith({ status: value })}
              aria-current={value === status ? "page" : undefined}
            >
              {STATUS_LABEL[value]}
            </Link>
          ))}
        </nav>
        <label className={styles.sort}>
          Sort by{" "}
          <select
            value={sort}
            onChange={(event) => update({ sort: event.target.value === "count" ? "count" : null })}
          >
            <option value="last_seen">Last seen</option>
            <option value="count">Chains</option>
          </select>
        </label>
      </div>
      {problems.isPending ? (
        <LoadingState label="Loading problems" rows={6} />
      ) : problems.isError ? (
        <ErrorState error={problems.error} what="problems" onRetry={() => problems.refetch()} />
      ) : problems.data.problems.length === 0 ? (
        <div className="panel">
          <EmptyState title={`No ${STATUS_LABEL[status].toLowerCase()} problems`} icon="✓">
            <p>{PROBLEM_WINDOW_SPEC[window].label}: nothing matches these filters.</p>
          </EmptyState>
        </div>
      ) : (
        <>
          {chosen.length > 0 && (
            <section className={`panel ${styles.bulkBar}`} aria-label="Selected problems">
              <strong>{chosen.length} selected</strong>
              {confirmingBulk ? (
                <ResolveConfirm
                  keys={chosen}
                  busy={bulk.isPending}
                  onConfirm={resolveSelected}
                  onCancel={() => setConfirmingBulk(false)}
                />
              ) : (
                <button
                  type="button"
                  className="button small primary"
                  disabled={chosen.length > MAX_BULK_PROBLEMS}
                  title={
                    chosen.length > MAX_BULK_PROBLEMS ? `At most ${MAX_BULK_PROBLEMS} at once` : undefined
                  }
                  onClick={() => setConfirmingBulk(true)}
                >
                  Resolve selected
                </button>
              )}
              <button type="button" className="button small" onClick={() => setSelected([])}>
                Clear selection
              </button>
              {bulk.isError && <ErrorState error={bulk.error} what="resolving the selected problems" />}
            </section>
          )}
          <ul className={`panel ${styles.list}`} aria-label="Problems">
            {problems.data.problems.map((problem) => (
              <ProblemRow
                key={problem.key}
                problem={problem}
                since={problems.data.since}
                selected={chosen.includes(problem.key)}
                onSelect={(on) => select(problem.key, on)}
                onResolved={setOutcome}
              />
            ))}
          </ul>
          {problems.data.truncated && (
            <p className="muted">More problems match: narrow the filters to see the rest.</p>
          )}
        </>
      )}
      {outcome && (
        <ResolvedNotice key={outcome.undo?.id ?? outcome.message} outcome={outcome} onDone={dismiss} />
      )}
      <p className="muted">
        The line shows chains last seen per interval over the window (
        {PROBLEM_WINDOW_SPEC[window].label.toLowerCase()}
        ). A resolved problem comes back as <strong>Regressed</strong> when one of its chains is stored again.
      </p>
    </div>
  );
}

function pick<T extends string>(allowed: readonly T[], value: string | null, fallback: T): T {
  return allowed.includes(value as T) ? (value as T) : fallback;
}
