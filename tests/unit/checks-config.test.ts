// Destination checks' pure parts: the config's rules, URL templates, and what an answer means.
import { describe, expect, it } from "vitest";
import { type TCheck, ZChecksConfig } from "@/lib/checks/config";
import { checkMatches, checksCovering, decideHttp, decideSql, readPointer } from "@/lib/checks/decide";
import { renderTemplate, templateProblems } from "@/lib/checks/template";

const httpCheck = (http: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  version: 1,
  checks: [{ name: "reports", match: { tool: "create_report" }, http, ...extra }],
});

const issues = (input: unknown) => {
  const parsed = ZChecksConfig.safeParse(input);
  return parsed.success
    ? []
    : parsed.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message }));
};

describe("the checks config", () => {
  it("fills defaults: GET, 200 committed, 404/410 absent, 5 s, 3 attempts", () => {
    const parsed = ZChecksConfig.parse(httpCheck({ url: "https://reports.example.com/r/{operationKey}" }));
    expect(parsed.checks[0]).toMatchObject({
      http: { method: "GET", committed: [200], absent: [404, 410], headersFromEnv: {} },
      timeoutMs: 5000,
      attempts: 3,
      match: { labels: {} },
    });
  });

  it.each([
    [
      httpCheck({ url: "https://{labels.host}/r" }),
      "checks.0.http.url",
      "placeholders may fill the path and query, not the host",
    ],
    [
      httpCheck({ url: "https://x.example/{opKey}" }),
      "checks.0.http.url",
      "{opKey} is not a placeholder: use {operationKey}, {effect.receipt} or {labels.<name>}",
    ],
    [httpCheck({ url: "ftp://x.example/{operationKey}" }), "checks.0.http.url", "an http(s) URL"],
    [
      httpCheck({ url: "https://x.example/", headersFromEnv: { authorization: "HOME" } }),
      "checks.0.http.headersFromEnv.authorization",
      "an environment variable named RECEIPT_CHECK_…",
    ],
    [
      {
        version: 1,
        checks: [
          {
            name: "both",
            match: {},
            http: { url: "https://x.example/" },
            sql: { connection: "RECEIPT_CHECK_DB", query: "select 1" },
          },
        ],
      },
      "checks.0",
      "a check has exactly one of http or sql",
    ],
    [
      {
        version: 1,
        checks: [
          {
            name: "write",
            match: {},
            sql: { connection: "RECEIPT_CHECK_DB", query: "delete from t where k = $1" },
          },
        ],
      },
      "checks.0.sql.query",
      "a SELECT (or WITH … SELECT) query",
    ],
    [
      {
        version: 1,
        checks: [
          {
            name: "two",
            match: {},
            sql: { connection: "RECEIPT_CHECK_DB", query: "select 1; drop table t" },
          },
        ],
      },
      "checks.0.sql.query",
      "one statement",
    ],
    [
      {
        version: 1,
        checks: [
          httpCheck({ url: "https://x.example/" }).checks[0],
          httpCheck({ url: "https://y.example/" }).checks[0],
        ],
      },
      "checks.1.name",
      '"reports" is used twice',
    ],
  ])("refuses a bad check at its path (%#)", (input, path, message) => {
    expect(issues(input)).toContainEqual({ path, message });
  });
});

describe("URL templates", () => {
  const values = { operationKey: "op/1?x=2#y", receipt: "rcpt 9", labels: { team: "a&b" } };

  it("URL-encodes every value, so none can add a segment, a query or a host", () => {
    expect(
      renderTemplate("https://x.example/r/{operationKey}?by={labels.team}&r={effect.receipt}", values),
    ).toEqual({
      url: "https://x.example/r/op%2F1%3Fx%3D2%23y?by=a%26b&r=rcpt%209",
    });
  });

  it("names the value a chain lacks", () => {
    expect(renderTemplate("https://x.example/{labels.region}", values)).toEqual({ missing: "labels.region" });
    expect(renderTemplate("https://x.example/{operationKey}", { ...values, operationKey: null })).toEqual({
      missing: "operationKey",
    });
  });

  it("accepts the documented placeholders", () => {
    expect(templateProblems("https://x.example/{operationKey}/{effect.receipt}?t={labels.team}")).toEqual([]);
  });
});

describe("decisions", () => {
  const http = ZChecksConfig.parse(
    httpCheck({ url: "https://x.example/", outcome: { pointer: "/state", equals: "done" } }),
  ).checks[0]?.http;
  if (!http) throw new Error("parsed");

  it("maps statuses to committed, absent or unknown and keeps no body", () => {
    expect(decideHttp(http, { status: 404, body: "secret stuff" })).toEqual({
      effect: "absent",
      outcome: null,
      receipt: "HTTP 404",
    });
    expect(decideHttp(http, { status: 503, body: null })).toEqual({
      effect: "unknown",
      outcome: null,
      receipt: "HTTP 503",
    });
    expect(decideHttp(http, { status: 200, body: '{"state":"done"}' })).toEqual({
      effect: "committed",
      outcome: "pass",
      receipt: "HTTP 200",
    });
    expect(decideHttp(http, { status: 200, body: '{"state":"draft"}' })).toMatchObject({
      effect: "committed",
      outcome: "fail",
    });
    expect(decideHttp(http, { status: 200, body: "<html>" })).toEqual({
      effect: "committed",
      outcome: null,
      receipt: "HTTP 200, body not JSON",
    });
  });

  it("reads RFC 6901 pointers", () => {
    const doc = { a: [{ "b/c": 1, "d~e": 2 }], "": 3 };
    expect(readPointer(doc, "/a/0/b~1c")).toEqual({ found: true, value: 1 });
    expect(readPointer(doc, "/a/0/d~0e")).toEqual({ found: true, value: 2 });
    expect(readPointer(doc, "/")).toEqual({ found: true, value: 3 });
    expect(readPointer(doc, "/a/1")).toEqual({ found: false });
    expect(readPointer(doc, "/a/01")).toEqual({ found: false });
    expect(readPointer(doc, "")).toEqual({ found: true, value: doc });
  });

  it("maps rows: one is committed, none absent, the column decides the outcome", () => {
    const sql = {
      connection: "RECEIPT_CHECK_DB",
      query: "select 1",
      outcome: { column: "status", equals: "paid" },
    };
    expect(decideSql(sql, [])).toEqual({ effect: "absent", outcome: null, receipt: "0 rows" });
    expect(decideSql(sql, [{ status: "paid" }])).toEqual({
      effect: "committed",
      outcome: "pass",
      receipt: "1 row",
    });
    expect(decideSql(sql, [{ status: "void" }, { status: "paid" }])).toEqual({
      effect: "committed",
      outcome: "fail",
      receipt: "2 rows",
    });
  });

  it("matches chains by server, tool and labels", () => {
    const facts = { server: "reports", tool: "create_report", labels: { team: "a", env: "prod" } };
    expect(checkMatches({ match: { tool: "create_report", labels: { env: "prod" } } }, facts)).toBe(true);
    expect(checkMatches({ match: { server: "other", labels: {} } }, facts)).toBe(false);
    expect(checkMatches({ match: { labels: { env: "dev" } } }, facts)).toBe(false);
    expect(checkMatches({ match: { labels: {} } }, facts)).toBe(true);
  });
});

describe("coverage", () => {
  it("names the checks that read a server's tool, and those that cover only some labels", () => {
    const checks: Pick<TCheck, "name" | "match">[] = [
      { name: "any-report", match: { tool: "create_report", labels: {} } },
      { name: "prod-report", match: { tool: "create_report", labels: { env: "prod" } } },
      { name: "other-server", match: { server: "b", tool: "create_report", labels: {} } },
      { name: "mail", match: { tool: "send_email", labels: {} } },
    ];
    expect(checksCovering(checks, "a", "create_report")).toEqual(["any-report", "prod-report (some labels)"]);
    expect(checksCovering(checks, "b", "create_report")).toEqual([
      "any-report",
      "prod-report (some labels)",
      "other-server",
    ]);
    expect(checksCovering(checks, null, "charge_card")).toEqual([]);
  });
});
