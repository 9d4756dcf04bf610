// The chain list's filter combinations as the UI offers them (components/chains/ChainFilters.tsx: states, server,
// tool, client, session, labels, a time range, oldest first, by danger) and a problem's reason: each alone, every
// pair, two labels with another filter, and a few triples.

/** One read the dashboard bench times (dashboard-requests.ts). */
export type BenchRequest = { label: string; path: string; kind: "list" | "detail" | "page" | "report" };

const HOUR = 3_600_000;

type Filter = { name: string; query: string };

export function chainFilterRequests(sample: { session_id: string } | undefined): BenchRequest[] {
  const until = encodeURIComponent(
    new Date(Math.floor((Date.now() - 48 * HOUR) / HOUR) * HOUR).toISOString(),
  );
  const paired: Filter[] = [
    { name: "state", query: "state=effect_unknown" },
    { name: "states", query: "state=false_success,tool_failed" },
    { name: "server", query: "server=billing-api" },
    { name: "tool", query: "tool=create_invoice" },
    { name: "client", query: "client=nightly-etl" },
    { name: "label", query: "label=env:staging" },
    { name: "since", query: "since=24h" },
    { name: "order", query: "order=asc" },
    { name: "sort", query: "sort=danger" },
  ];
  const alone: Filter[] = [
    { name: "labels", query: "label=env:prod&label=team:data" },
    { name: "reason", query: "reason=outcome.no_receipt" },
    { name: "rare reason", query: "reason=session.no_agreed_version" },
    // A problem's link without a server or tool (components/problems/ProblemRow.tsx).
    { name: "state+reason+since 7d", query: "state=false_success&reason=outcome.verifier_failed&since=7d" },
    // Typed into the URL: a reason no chain of the state has (the state's index alone would walk all of its chains).
    { name: "state+absent reason", query: "state=healthy&reason=outcome.verifier_failed" },
    // Codes of a path (contract §3), typed into the URL: common, rare, and one no chain has.
    { name: "path code", query: "reason=request.deadline_exceeded" },
    { name: "rare path code", query: "reason=request.inactive" },
    { name: "absent path code", query: "reason=request.cancelled" },
    { name: "state+absent path code", query: "state=false_success&reason=request.cancelled" },
    { name: "path code+since 24h+asc", query: "reason=request.deadline_exceeded&since=24h&order=asc" },
    { name: "state+path code", query: "state=effect_unknown&reason=request.deadline_exceeded" },
    // A state none of a common code's chains has (healthy, the largest), and a rare code's (tool_failed).
    {
      name: "state+path code none of its chains has",
      query: "state=healthy&reason=request.deadline_exceeded",
    },
    { name: "state+rare path code none has", query: "state=tool_failed&reason=request.inactive" },
    {
      name: "states+path code by danger",
      query: "state=tool_failed,effect_unknown&reason=request.deadline_exceeded&sort=danger",
    },
    { name: "path code by danger", query: "reason=request.deadline_exceeded&sort=danger" },
    { name: "since 1h", query: "since=1h" },
    { name: "since 7d", query: "since=7d" },
    { name: "until", query: `since=7d&until=${until}` },
    ...(sample ? [{ name: "session", query: `session=${encodeURIComponent(sample.session_id)}` }] : []),
  ];
  const combos: Filter[][] = [...paired.map((f) => [f]), ...alone.map((f) => [f])];
  for (const [i, a] of paired.entries()) {
    for (const b of paired.slice(i + 1)) {
      if (a.name === "state" && b.name === "states") continue; // one state filter at a time
      if (a.name === "order" && b.name === "sort") continue; // danger has no oldest-first
      combos.push([a, b]);
    }
  }
  const find = (name: string) => [...paired, ...alone].find((f) => f.name === name) as Filter;
  combos.push(
    [find("labels"), find("states")],
    [find("labels"), find("server")],
    [find("labels"), find("since")],
    [find("labels"), find("sort")],
    [find("state"), find("server"), find("since")],
    [find("server"), find("tool"), find("client")],
    [find("states"), find("label"), find("sort")],
    [find("states"), find("server"), find("tool"), find("client"), find("label"), find("since")],
  );
  return combos.map((filters) => {
    const query = filters.map((f) => f.query).join("&");
    return {
      label: `/api/v1/chains?${filters.map((f) => f.name).join("+")}`,
      path: `/api/v1/chains?${query}`,
      kind: "list" as const,
    };
  });
}
