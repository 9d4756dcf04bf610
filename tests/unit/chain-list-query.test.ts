// The chain list's and the search box's query parsing: several states, relative ranges resolved per request, the
// danger order, the capped total's words, where a search jumps, and the refusals with their JSON paths.
import { describe, expect, it } from "vitest";
import { STATE_SEVERITY_ORDER } from "@/lib/contract";
import {
  formatChainTotal,
  relativeRangeMs,
  resolveSince,
  splitStates,
  statesByDanger,
} from "@/lib/dashboard/chain-list-query";
import { encodeCursor, parseCursor } from "@/lib/dashboard/cursor";
import { resourceOfPath } from "@/lib/dashboard/page-resource";
import { searchTarget } from "@/lib/dashboard/search";
import { ApiError } from "@/lib/server/http/api-error";
import { parseQuery, ZChainQuery, ZSearchQuery } from "@/lib/server/reading/chain-query";

const NOW = Date.parse("2026-12-01T12:00:00.000Z");
const url = (query: string) => new URL(`http://x/api/v1/chains?${query}`);

function refusal(run: () => unknown) {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, code: error.code, issues: error.issues };
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("relative ranges", () => {
  it("reads minutes, hours and days, and nothing else", () => {
    expect(relativeRangeMs("15m")).toBe(15 * 60_000);
    expect(relativeRangeMs("1h")).toBe(3_600_000);
    expect(relativeRangeMs("24h")).toBe(86_400_000);
    expect(relativeRangeMs("7d")).toBe(7 * 86_400_000);
    for (const bad of ["", "0h", "1", "h", "1w", "01h", "1.5h", "-1h", "10000d", " 1h"]) {
      expect(relativeRangeMs(bad), bad).toBeUndefined();
    }
  });

  it("resolves a relative since against now, and keeps an absolute one", () => {
    expect(resolveSince("1h", NOW)?.toISOString()).toBe("2026-12-01T11:00:00.000Z");
    expect(resolveSince("7d", NOW)?.toISOString()).toBe("2026-11-24T12:00:00.000Z");
    expect(resolveSince("2026-11-30T10:00:00+02:00", NOW)?.toISOString()).toBe("2026-11-30T08:00:00.000Z");
    expect(resolveSince("yesterday", NOW)).toBeUndefined();
    expect(resolveSince("2026-11-30T10:00:00", NOW)).toBeUndefined(); // no zone
  });

  it("the read endpoint resolves since=1h at the request, so the same URL moves with the clock", () => {
    const before = Date.now();
    const query = parseQuery(ZChainQuery, url("since=1h"));
    const since = Date.parse(query.since ?? "");
    expect(since).toBeGreaterThanOrEqual(before - 3_600_000);
    expect(since).toBeLessThanOrEqual(Date.now() - 3_600_000);
  });
});

describe("several states", () => {
  it("splits commas and repeats alike, dropping empties and repeats", () => {
    expect(splitStates("false_success,effect_unknown")).toEqual(["false_success", "effect_unknown"]);
    expect(splitStates(["false_success", "effect_unknown,false_success", ""])).toEqual([
      "false_success",
      "effect_unknown",
    ]);
    expect(splitStates(undefined)).toEqual([]);
  });

  it("the endpoint takes state=a,b and state=a&state=b", () => {
    const repeated = new URL("http://x/?state=tool_failed&state=healthy");
    expect(parseQuery(ZChainQuery, repeated, ["state"]).state).toEqual(["tool_failed", "healthy"]);
    expect(parseQuery(ZChainQuery, url("state=tool_failed,healthy"), ["state"]).state).toEqual([
      "tool_failed",
      "healthy",
    ]);
  });

  it("an unknown state is a 400 at $.query.state", () => {
    expect(refusal(() => parseQuery(ZChainQuery, url("state=healthy,green"), ["state"]))).toMatchObject({
      status: 400,
      code: "invalid_query",
      issues: [{ path: "$.query.state" }],
    });
  });

  it("a since that is neither relative nor a timestamp is a 400 at $.query.since", () => {
    expect(refusal(() => parseQuery(ZChainQuery, url("since=1w")))).toMatchObject({
      issues: [{ path: "$.query.since" }],
    });
  });

  it("sort is time or danger", () => {
    expect(parseQuery(ZChainQuery, url("")).sort).toBe("time");
    expect(parseQuery(ZChainQuery, url("sort=danger")).sort).toBe("danger");
    expect(refusal(() => parseQuery(ZChainQuery, url("sort=name")))).toMatchObject({
      issues: [{ path: "$.query.sort" }],
    });
  });
});

describe("danger order and totals", () => {
  it("orders states by the contract's severity order", () => {
    expect(statesByDanger(["healthy", "tool_failed", "effect_unknown"])).toEqual([
      "effect_unknown",
      "tool_failed",
      "healthy",
    ]);
    expect(statesByDanger([...STATE_SEVERITY_ORDER].reverse())).toEqual(STATE_SEVERITY_ORDER);
  });

  it("a danger cursor carries its rank; a time cursor does not; a bad rank is refused", () => {
    const danger = { observedAt: "2026-12-01T10:00:00.000Z", chainId: "c:1", danger: 3 };
    expect(parseCursor(encodeCursor(danger))).toEqual(danger);
    const time = { observedAt: "2026-12-01T10:00:00.000Z", chainId: "c:1" };
    expect(parseCursor(encodeCursor(time))).toEqual(time);
    const badRank = Buffer.from(JSON.stringify([time.observedAt, time.chainId, -1])).toString("base64url");
    expect(parseCursor(badRank)).toBeUndefined();
  });

  it("says the total, or that it stopped counting", () => {
    expect(formatChainTotal({ count: 1, capped: false })).toBe("1 chain");
    expect(formatChainTotal({ count: 1234, capped: false })).toBe("1,234 chains");
    expect(formatChainTotal({ count: 10_000, capped: true })).toBe("more than 10,000 chains");
  });
});

describe("search", () => {
  const chain = (chainId: string) => ({ chainId }) as never;
  it("jumps only when the id names exactly one chain or one session", () => {
    expect(searchTarget({ sessions: [], chains: [chain("c:1")], more: false })).toBe("/chains/c%3A1");
    expect(
      searchTarget({
        sessions: [{ sessionId: "s 1", chains: 2, moreChains: false }],
        chains: [],
        more: false,
      }),
    ).toBe("/sessions/s%201");
    expect(searchTarget({ sessions: [], chains: [chain("a"), chain("b")], more: false })).toBeNull();
    expect(
      searchTarget({
        sessions: [{ sessionId: "a", chains: 1, moreChains: false }],
        chains: [chain("a")],
        more: false,
      }),
    ).toBeNull();
    expect(searchTarget({ sessions: [], chains: [], more: false })).toBeNull();
  });

  it("refuses an empty, whitespace, too long or NUL query with its path", () => {
    for (const q of ["", "%20%20", "x".repeat(513), "a%00b"]) {
      const issue = refusal(() => parseQuery(ZSearchQuery, new URL(`http://x/?q=${q}`)));
      expect(issue, q).toMatchObject({ status: 400, code: "invalid_query", issues: [{ path: "$.query.q" }] });
    }
    expect(refusal(() => parseQuery(ZSearchQuery, new URL("http://x/")))).toMatchObject({
      issues: [{ path: "$.query.q" }],
    });
    // Kept as sent: a refused token's offsets count from the query's first character.
    expect(parseQuery(ZSearchQuery, new URL("http://x/?q=%20req-1%20")).q).toBe(" req-1 ");
  });
});

describe("page paths that name a chain or a session (their 404)", () => {
  it("finds the id, decoded, and ignores every other page", () => {
    expect(resourceOfPath("/chains/chain%3Aa")).toEqual({ kind: "chain", id: "chain:a" });
    expect(resourceOfPath("/sessions/s-1?chain=x")).toEqual({ kind: "session", id: "s-1" });
    for (const path of [
      "/chains",
      "/chains?state=healthy",
      "/",
      "/search?q=a",
      "/chains/a/b",
      "/chains/%E0%A4%A",
    ]) {
      expect(resourceOfPath(path), path).toBeNull();
    }
  });
});
