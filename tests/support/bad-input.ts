/**
 * Bad input of every class issue 17 names, shared by the table tests (hardening-records.test.ts,
 * hardening-requests.test.ts) and the fuzz run (hardening-input-fuzz.test.ts): what to send, and what each must be
 * answered with.
 */
import { expect } from "vitest";

/** One route with an id in its path; `{}` marks the segment under test. */
export type PathEndpoint = { method: string; template: string; param: string };

export const PATH_ENDPOINTS: PathEndpoint[] = [
  { method: "GET", template: "/api/v1/chains/{}", param: "chainId" },
  { method: "GET", template: "/api/v1/chains/{}/triage", param: "chainId" },
  { method: "POST", template: "/api/v1/chains/{}/triage", param: "chainId" },
  { method: "POST", template: "/api/v1/chains/{}/reconcile", param: "chainId" },
  { method: "GET", template: "/api/v1/sessions/{}", param: "sessionId" },
  { method: "GET", template: "/api/v1/queues/{}", param: "queue" },
  { method: "DELETE", template: "/api/v1/keys/{}", param: "name" },
  { method: "PUT", template: "/api/v1/routing/silences/{}", param: "id" },
  { method: "DELETE", template: "/api/v1/routing/silences/{}", param: "id" },
  { method: "POST", template: "/api/v1/routing/deliveries/{}/retry", param: "id" },
  { method: "POST", template: "/api/v1/routing/alerts/{}/resolve", param: "fingerprint" },
];

/** Segments no decoder accepts: invalid hex, truncated or invalid UTF-8, an encoded surrogate, an overlong form. */
export const UNDECODABLE_SEGMENTS = [
  "%ZZ",
  "%E0%A4%A",
  "%ED%A0%80",
  "%",
  "ab%2",
  "%C0%AF",
  "%FF",
  "x%F0%9F%98",
];

export const pathOf = (endpoint: PathEndpoint, segment: string) => endpoint.template.replace("{}", segment);

/** A cursor as the API encodes one: base64url of JSON. */
export const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** Cursors the API never returned; each must be 400 `invalid_query` at `$.query.cursor`. */
export const CRAFTED_CURSORS: [string, string][] = [
  ["not base64 JSON", "nonsense"],
  ["symbols", "%%%%"],
  ["base64 of garbage", Buffer.from("\u0000\u0001garbage").toString("base64url")],
  ["JSON null", cursorOf(null)],
  ["an object", cursorOf({ observedAt: "2026-11-30T10:00:00Z", chainId: "c" })],
  ["one element", cursorOf(["2026-11-30T10:00:00Z"])],
  ["three elements", cursorOf(["2026-11-30T10:00:00Z", "c", "x"])],
  ["numbers", cursorOf([1, 2])],
  ["a huge number as observedAt", cursorOf([1e308, "chain:a"])],
  ["year 0000", cursorOf(["0000-01-01T00:00:00Z", "chain:a"])],
  ["an expanded year", cursorOf(["+275760-09-13T00:00:00.000Z", "chain:a"])],
  ["an impossible date", cursorOf(["2026-02-30T00:00:00Z", "chain:a"])],
  ["NUL in the chainId", cursorOf(["2026-11-30T10:00:00Z", "chain:\u0000"])],
  ["a lone surrogate in the chainId", cursorOf(["2026-11-30T10:00:00Z", "chain:\uD800"])],
  ["a chainId no chain can have", cursorOf(["2026-11-30T10:00:00Z", "a b"])],
  ["1e400", Buffer.from('["2026-11-30T10:00:00Z", 1e400]').toString("base64url")],
];

type ErrorBody = { error?: { code?: unknown; issues?: { path?: unknown; code?: unknown }[] } };

/** Reads an error answer and checks it is exactly `status` + `code`, with an issue at `path` (and `issueCode`). */
export async function expectError(
  response: Response,
  status: number,
  code: string,
  path: string,
  issueCode?: string,
): Promise<void> {
  const text = await response.text();
  expect({ status: response.status, text: text.slice(0, 300) }).toMatchObject({ status });
  const body = JSON.parse(text) as ErrorBody;
  expect(body.error?.code).toBe(code);
  expect(body.error?.issues).toContainEqual(
    expect.objectContaining({ path, ...(issueCode ? { code: issueCode } : {}) }),
  );
}

/** For the fuzz run: any 4xx with a machine-readable code and at least one issue located by a JSON path. */
export async function expectLocatedClientError(response: Response, what: string): Promise<void> {
  const text = await response.text();
  const located = { what, status: response.status, text: text.slice(0, 300) };
  expect(response.status, JSON.stringify(located)).toBeGreaterThanOrEqual(400);
  expect(response.status, JSON.stringify(located)).toBeLessThan(500);
  const body = JSON.parse(text) as ErrorBody;
  expect(typeof body.error?.code, JSON.stringify(located)).toBe("string");
  const paths = (body.error?.issues ?? []).map((issue) => issue.path);
  expect(paths.length, JSON.stringify(located)).toBeGreaterThan(0);
  for (const path of paths) expect(String(path), JSON.stringify(located)).toMatch(/^\$/);
}
