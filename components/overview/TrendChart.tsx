"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { TimeWindow, Trend } from "@/lib/dashboard/api-types";
import { STATE_META, STATES_BY_SEVERITY } from "@/lib/dashboard/state-meta";
import { useTrend } from "../api/queries";
import { EmptyState, ErrorState, LoadingState } from "../ui/StatusViews";

const hourMinute = new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", timeZone: "UTC" });
const dayHour = new Intl.DateTimeFormat("en-GB", { weekday: "short", hour: "2-digit", timeZone: "UTC" });

function bucketLabel(iso: string, window: TimeWindow): string {
  return window === "7d" ? `${dayHour.format(Date.parse(iso))}h` : hourMinute.format(Date.parse(iso));
}

/** Stacked bars of chains per state over the window (recharts), most dangerous states at the bottom. */
export function TrendChart({ window }: { window: TimeWindow }) {
  const trend = useTrend(window);
  return (
    <section className="panel" aria-labelledby="trend-title">
      <h2 id="trend-title">Trend (UTC)</h2>
      {trend.isPending ? (
        <LoadingState label="Loading the trend" rows={6} />
      ) : trend.isError ? (
        <ErrorState error={trend.error} what="the trend" onRetry={() => trend.refetch()} />
      ) : (
        <TrendBars trend={trend.data} window={window} />
      )}
    </section>
  );
}

function TrendBars({ trend, window }: { trend: Trend; window: TimeWindow }) {
  const rows = trend.buckets.map((bucket) => ({
    label: bucketLabel(bucket.start, window),
    ...bucket.counts,
  }));
  const present = STATES_BY_SEVERITY.filter((state) => trend.buckets.some((b) => (b.counts[state] ?? 0) > 0));
  if (present.length === 0) {
    return (
      <EmptyState title="No chains in this window">Records posted to /api/v1/records appear here.</EmptyState>
    );
  }
  return (
    <>
      <div style={{ width: "100%", height: 280 }} data-testid="trend-chart">
        <ResponsiveContainer>
          <BarChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: -16 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="label" tick={{ fontSize: 11 }} interval="preserveStartEnd" minTickGap={12} />
            <YAxis allowDecimals={false} tick={{ fontSize: 11 }} />
            <Tooltip />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            {present.map((state) => (
              <Bar
                key={state}
                dataKey={state}
                name={STATE_META[state].label}
                stackId="states"
                fill={STATE_META[state].color}
                isAnimationActive={false}
              />
            ))}
          </BarChart>
        </ResponsiveContainer>
      </div>
      <details>
        <summary className="muted">The same data as a table</summary>
        <TrendTable rows={rows} states={present} />
      </details>
    </>
  );
}

function TrendTable({
  rows,
  states,
}: {
  rows: Record<string, string | number>[];
  states: typeof STATES_BY_SEVERITY;
}) {
  return (
    <div className="table-scroll" style={{ marginTop: "0.5rem" }}>
      <table className="data-table">
        <thead>
          <tr>
            <th scope="col">Bucket</th>
            {states.map((state) => (
              <th key={state} scope="col" className="num">
                {STATE_META[state].label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={String(row.label)}>
              <th scope="row">{row.label}</th>
              {states.map((state) => (
                <td key={state} className="num" data-label={STATE_META[state].label}>
                  {row[state] ?? 0}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
