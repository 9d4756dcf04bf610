"use client";

import Link from "next/link";
import { useState } from "react";
import type { Coverage, CoverageCounts } from "@/lib/dashboard/api-types";
import { formatCount, formatShare } from "@/lib/dashboard/format";
import { WINDOW_SPEC } from "@/lib/dashboard/time-windows";
import { useCoverage } from "../api/queries";
import { EmptyState, ErrorState, LoadingState } from "../ui/StatusViews";
import { useUrlState } from "../ui/use-url-state";
import styles from "./Coverage.module.css";

const WINDOWS = [
  { value: "24h", label: "24 h" },
  { value: "7d", label: "7 d" },
  { value: "all", label: "All time" },
] as const;

/**
 * Outcome coverage per server and tool: how many calls carry an outcome receipt, how many wait for a verifier,
 * could not be read back, or have no verifier at all. The report that makes `unverified` shrink.
 */
export function CoverageView() {
  const { params } = useUrlState();
  const window = WINDOWS.find((w) => w.value === params.get("window"))?.value ?? "7d";
  const since = useSince(window);
  const coverage = useCoverage(since);
  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <h1>Outcome coverage</h1>
          <p>
            For each server and tool: does a verifier read the deliverable back? Calls without a receipt stay
            unverified.
          </p>
        </div>
        <nav aria-label="Time window" className={styles.windows}>
          {WINDOWS.map((w) => (
            <Link
              key={w.value}
              href={`/coverage?window=${w.value}`}
              aria-current={w.value === window ? "true" : undefined}
            >
              {w.label}
            </Link>
          ))}
        </nav>
      </div>
      {coverage.isPending ? (
        <LoadingState label="Loading coverage" rows={6} />
      ) : coverage.isError ? (
        <ErrorState error={coverage.error} what="coverage" onRetry={() => coverage.refetch()} />
      ) : coverage.data.rows.length === 0 ? (
        <div className="panel">
          <EmptyState title="No tool calls in this window">
            <p>Chains without a call (session or catalog only) have nothing to verify.</p>
          </EmptyState>
        </div>
      ) : (
        <div className="table-scroll">
          <table className="data-table">
            <caption className="visually-hidden">Outcome coverage per server and tool</caption>
            <thead>
              <tr>
                <th scope="col">Server · tool</th>
                <th scope="col" className="num">
                  Calls
                </th>
                <th scope="col">With outcome receipt (of checked calls)</th>
                <th scope="col" className="num">
                  Pending
                </th>
                <th scope="col" className="num">
                  Unavailable
                </th>
                <th scope="col" className="num">
                  No verifier
                </th>
                <th scope="col" className="num">
                  <abbr title="failed, in doubt, in flight, or stopped at the session or catalog">
                    Not reached
                  </abbr>
                </th>
                <th scope="col">
                  <abbr title="calls whose chain has a layer the reporter did not see: the handshake or the tool list">
                    Unseen layers
                  </abbr>
                </th>
                <th scope="col">
                  <abbr title="the destination checks that read this tool's destination when its effect is unknown">
                    Destination check
                  </abbr>
                </th>
              </tr>
            </thead>
            <tbody>
              {coverage.data.rows.map((row) => (
                <CoverageRow
                  key={`${row.server}/${row.tool}`}
                  name={<Name server={row.server} tool={row.tool} />}
                  counts={row}
                  checks={row.checks}
                />
              ))}
            </tbody>
            <tfoot className={styles.totals}>
              <CoverageRow name={<strong>All</strong>} counts={coverage.data.totals} />
            </tfoot>
          </table>
        </div>
      )}
      {coverage.data && coverage.data.otlpRefusals.length > 0 && (
        <OtlpRefusals refusals={coverage.data.otlpRefusals} />
      )}
      <p className="muted">
        The share counts calls that reached the outcome check (the call succeeded, or its write was
        confirmed). Pending: a verifier was declared before the call but has not reported. Unavailable: it ran
        but could not read the result back. No verifier: nothing was declared — declare one to turn these
        calls into receipts. Weak receipts come from an LLM judge. Not reached: the call failed, is in doubt
        or in flight, or its session or catalog stopped it — nothing to verify yet. Unseen layers: the share
        of calls whose reporter did not see the session's handshake or its tool list (a sampled trace without
        the initialize or tools/list span, a collector attached late) — a gap in coverage, never a failure,
        and never green. Export those spans, or put the session id on them, to close it.
      </p>
    </div>
  );
}

/** What POST /v1/traces refused in the window: spans no row above counts, by code (docs/OTLP.md, "Endpoint"). */
function OtlpRefusals({ refusals }: { refusals: Coverage["otlpRefusals"] }) {
  return (
    <section className="panel" aria-labelledby="otlp-refusals">
      <h2 id="otlp-refusals">OpenTelemetry spans refused</h2>
      <p className="muted">
        Spans an exporter sent to <span className="mono">/v1/traces</span> that were not stored, so no call
        above counts them. The exporter got each code in its answer (partial success, or the whole export
        refused).
      </p>
      <table className="data-table">
        <caption className="visually-hidden">OpenTelemetry spans refused in this window, by code</caption>
        <thead>
          <tr>
            <th scope="col">Code</th>
            <th scope="col" className="num">
              Spans
            </th>
            <th scope="col" className="num">
              Exports
            </th>
          </tr>
        </thead>
        <tbody>
          {refusals.map((refusal) => (
            <tr key={refusal.code}>
              <th scope="row" className="mono">
                {refusal.code}
              </th>
              <td className="num">{formatCount(refusal.spans)}</td>
              <td className="num">{formatCount(refusal.exports)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Name({ server, tool }: { server: string | null; tool: string }) {
  const query = new URLSearchParams({ tool, ...(server ? { server } : {}) });
  return (
    <Link href={`/chains?${query}`}>
      {server ?? "no server"} · <span className="mono">{tool}</span>
    </Link>
  );
}

function CoverageRow({
  name,
  counts,
  checks,
}: {
  name: React.ReactNode;
  counts: CoverageCounts;
  /** Undefined for the totals row. */
  checks?: string[];
}) {
  // The share among calls that reached the outcome check: a failed call has no deliverable to verify.
  const checked = counts.calls - counts.notReached;
  const share = checked ? counts.withReceipt / checked : 0;
  return (
    <tr>
      <th scope="row">{name}</th>
      <td data-label="Calls" className="num">
        {formatCount(counts.calls)}
      </td>
      <td data-label="With outcome receipt">
        <span className={styles.share}>
          <span className={styles.bar} aria-hidden="true">
            <span style={{ width: `${share * 100}%` }} />
          </span>
          <strong>{formatShare(counts.withReceipt, checked)}</strong>
          <span className="muted">
            {formatCount(counts.withReceipt)}
            {counts.weak > 0 && ` (${counts.weak} weak)`}
          </span>
        </span>
      </td>
      <td data-label="Pending" className="num">
        {formatCount(counts.pending)}
      </td>
      <td data-label="Unavailable" className="num">
        {formatCount(counts.unavailable)}
      </td>
      <td data-label="No verifier" className={`num ${counts.noVerifier > 0 ? styles.gap : ""}`}>
        {formatCount(counts.noVerifier)}
      </td>
      <td data-label="Not reached" className="num muted">
        {formatCount(counts.notReached)}
      </td>
      <td
        data-label="Unseen layers"
        className={counts.notObserved > 0 ? styles.unseen : "muted"}
        data-column="unseen-layers"
      >
        <strong>{formatShare(counts.notObserved, counts.calls)}</strong>{" "}
        <span className="muted">
          {formatCount(counts.notObserved)}
          {counts.notObserved > 0 &&
            ` (handshake ${formatCount(counts.handshakeNotObserved)}, tool list ${formatCount(counts.catalogNotObserved)})`}
        </span>
      </td>
      <td data-label="Destination check" data-column="destination-check">
        {checks === undefined ? null : checks.length === 0 ? (
          <span className="muted">none</span>
        ) : (
          <span className="mono">{checks.join(", ")}</span>
        )}
      </td>
    </tr>
  );
}

function useSince(window: "24h" | "7d" | "all"): string | undefined {
  const [nowMs] = useState(() => Date.now());
  if (window === "all") return undefined;
  // Rounded to the minute so the query key (and the cache) is stable while the page is open.
  return new Date(Math.floor((nowMs - WINDOW_SPEC[window].ms) / 60_000) * 60_000).toISOString();
}
