// What the dashboard asks the server for, page by page, and a timer for it.
import { type BenchRequest, chainFilterRequests } from "./chain-filter-requests";

export type Timed = BenchRequest & {
  p50: number;
  p95: number;
  max: number;
  runs: number;
  /** The HTTP status of a read that failed (it counts as over budget); undefined when every answer was 2xx. */
  failed?: number;
};

/** Every dashboard read, lists, reports, detail reads and pages alike (issue 21): p95 at most this many ms. */
export const BUDGET_MS = 100;
/** A read far over budget is timed fewer times, so one slow read cannot hold the run for long. */
const TIME_CAP_MS = 20_000;

const HOUR = 3_600_000;
const ago = (ms: number) =>
  encodeURIComponent(new Date(Math.floor((Date.now() - ms) / HOUR) * HOUR).toISOString());

/** Every request of the list pages (with their filters and a deep cursor), the overview, and the detail pages. */
export async function dashboardRequests(
  base: string,
  cookie: string,
  sample: { chain_id: string; session_id: string } | undefined,
): Promise<BenchRequest[]> {
  const cursor = await thirdPageCursor(base, cookie);
  const requests: BenchRequest[] = [
    { label: "/api/v1/chains", path: "/api/v1/chains", kind: "list" },
    { label: "/api/v1/chains?cursor=<page 3>", path: `/api/v1/chains?cursor=${cursor}`, kind: "list" },
    ...chainFilterRequests(sample),
    { label: "/api/v1/search?q=req-1", path: "/api/v1/search?q=req-1", kind: "list" },
    { label: "/api/v1/queues/effect-unknown", path: "/api/v1/queues/effect-unknown", kind: "list" },
    {
      label: "/api/v1/queues/false-success?status=all",
      path: "/api/v1/queues/false-success?status=all",
      kind: "list",
    },
    { label: "/api/v1/stats?since=24h", path: `/api/v1/stats?since=${ago(24 * HOUR)}`, kind: "list" },
    { label: "/api/v1/stats?since=7d", path: `/api/v1/stats?since=${ago(7 * 24 * HOUR)}`, kind: "list" },
    { label: "/api/v1/stats?since=1h", path: `/api/v1/stats?since=${ago(HOUR)}`, kind: "list" },
    { label: "/api/v1/stats/trend?window=1h", path: "/api/v1/stats/trend?window=1h", kind: "list" },
    { label: "/api/v1/stats/trend?window=24h", path: "/api/v1/stats/trend?window=24h", kind: "list" },
    { label: "/api/v1/stats/trend?window=7d", path: "/api/v1/stats/trend?window=7d", kind: "list" },
    { label: "/api/v1/attention?since=24h", path: `/api/v1/attention?since=${ago(24 * HOUR)}`, kind: "list" },
    { label: "/api/v1/facets", path: "/api/v1/facets", kind: "list" },
    {
      label: "/api/v1/coverage?since=7d",
      path: `/api/v1/coverage?since=${ago(7 * 24 * HOUR)}`,
      kind: "report",
    },
    { label: "/api/v1/coverage (all time)", path: "/api/v1/coverage", kind: "report" },
    { label: "/api/v1/problems (7 d)", path: "/api/v1/problems", kind: "list" },
    {
      label: "/api/v1/problems?window=30d&sort=count",
      path: "/api/v1/problems?window=30d&sort=count",
      kind: "list",
    },
    {
      label: "/api/v1/queues/effect-unknown?status=resolved",
      path: "/api/v1/queues/effect-unknown?status=resolved",
      kind: "list",
    },
    { label: "/ (overview page)", path: "/", kind: "page" },
    { label: "/chains (page)", path: "/chains?state=tool_failed", kind: "page" },
    { label: "/queues/effect-unknown (page)", path: "/queues/effect-unknown", kind: "page" },
    { label: "/coverage (page)", path: "/coverage", kind: "page" },
    { label: "/problems (page)", path: "/problems", kind: "page" },
    { label: "/search (page)", path: "/search?q=create_invoice", kind: "page" },
    { label: "/api/v1/search?q=create_invoice", path: "/api/v1/search?q=create_invoice", kind: "list" },
    { label: "/api/v1/routing/alerts/groups", path: "/api/v1/routing/alerts/groups", kind: "list" },
    {
      label: "/api/v1/routing/alerts/groups?status=resolved",
      path: "/api/v1/routing/alerts/groups?status=resolved",
      kind: "list",
    },
    {
      label: "/api/v1/routing/alerts/groups?q=billing",
      path: "/api/v1/routing/alerts/groups?q=billing",
      kind: "list",
    },
    { label: "/api/v1/routing/deliveries", path: "/api/v1/routing/deliveries", kind: "list" },
    { label: "/alerts (page)", path: "/alerts", kind: "page" },
  ];
  if (sample) {
    const chain = encodeURIComponent(sample.chain_id);
    requests.push(
      { label: "/api/v1/chains/{id}", path: `/api/v1/chains/${chain}`, kind: "detail" },
      { label: "/api/v1/chains/{id}/triage", path: `/api/v1/chains/${chain}/triage`, kind: "detail" },
      {
        label: "/api/v1/routing/alerts/groups?status=any&chain={id}",
        path: `/api/v1/routing/alerts/groups?status=any&chain=${chain}`,
        kind: "detail",
      },
      {
        label: "/api/v1/sessions/{id}",
        path: `/api/v1/sessions/${encodeURIComponent(sample.session_id)}`,
        kind: "detail",
      },
      { label: "/chains/{id} (page)", path: `/chains/${chain}`, kind: "page" },
      {
        label: "/sessions/{id} (page)",
        path: `/sessions/${encodeURIComponent(sample.session_id)}`,
        kind: "page",
      },
      { label: "/api/v1/search?q={chain id}", path: `/api/v1/search?q=${chain}`, kind: "detail" },
    );
  }
  return requests;
}

async function thirdPageCursor(base: string, cookie: string): Promise<string> {
  let cursor = "";
  for (let page = 0; page < 2; page++) {
    const response = await fetch(`${base}/api/v1/chains${cursor ? `?cursor=${cursor}` : ""}`, {
      headers: { cookie },
    });
    cursor = ((await response.json()) as { nextCursor: string }).nextCursor;
  }
  return cursor;
}

/** Three warm-ups, then `runs` sequential requests; the percentiles of the wall time each took. */
export async function timeRequest(
  base: string,
  cookie: string,
  request: BenchRequest,
  runs: number,
): Promise<Timed> {
  let failed: number | undefined;
  const once = async () => {
    const started = performance.now();
    const response = await fetch(`${base}${request.path}`, { headers: { cookie }, redirect: "manual" });
    await response.arrayBuffer();
    if (!response.ok) failed = response.status;
    return performance.now() - started;
  };
  for (let i = 0; i < 3; i++) await once();
  if (failed !== undefined) return { ...request, p50: 0, p95: 0, max: 0, runs: 0, failed };
  const times: number[] = [];
  let spent = 0;
  for (let i = 0; i < runs && (i < 5 || spent < TIME_CAP_MS); i++) {
    const ms = await once();
    spent += ms;
    times.push(ms);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)] ?? 0);
  return {
    ...request,
    p50: at(0.5),
    p95: at(0.95),
    max: Math.round(times.at(-1) ?? 0),
    runs: times.length,
    failed,
  };
}
