import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningApp, startApp } from "@/tests/support/app-server";
import { createTeamUser, signInCookie } from "@/tests/support/team-users";
import { createTestDatabase } from "@/tests/support/test-database";

// Issue 23: every route × every caller, as the API keys have per route × scope. One line per route and method; a
// route file or an exported method missing from ROUTES fails the first test, so nothing new slips in untested.

type Access = "public" | "session" | "ingest" | "read" | "respond" | "manage" | "config" | "self" | "audit";
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;
type Method = (typeof METHODS)[number];
/**
 * A method a route takes: who may call it, and the status an allowed caller gets for the minimal request sent (a
 * read, or a write refused by validation or aimed at an unknown id, so the table changes nothing), with this body.
 */
type Taken = [access: Access, allowed: number, body?: unknown];
type RouteRow = { route: string } & Partial<Record<Method, Taken>>;

// One line per route file. Every other method the file exports must answer 405 to every caller (derived from the
// file itself): a new handler nobody added here is then expected to be a 405, and fails loudly.
const ROUTES: RouteRow[] = [
  {
    route: "/api/[...unknown]",
    GET: pub(404),
    HEAD: pub(404),
    POST: pub(404),
    PUT: pub(404),
    PATCH: pub(404),
    DELETE: pub(404),
  },
  { route: "/api/auth/invites/[token]", GET: pub(404) },
  { route: "/api/auth/invites/[token]/accept", POST: pub(422, {}) },
  { route: "/api/auth/me", GET: ["session", 200] },
  // fetch follows the redirects: with no provider configured both land on /sign-in with an error, for anyone.
  { route: "/api/auth/oidc/callback", GET: pub(200) },
  { route: "/api/auth/oidc/start", GET: pub(200) },
  { route: "/api/auth/setup", POST: pub(422, {}) },
  { route: "/api/auth/sign-in", POST: pub(422, {}) },
  // Signing out ends the caller's session: that request is sent last, after every other one was checked.
  { route: "/api/auth/sign-out", POST: pub(200) },
  { route: "/api/health", GET: pub(200) },
  { route: "/api/v1/attention", GET: ["read", 200] },
  { route: "/api/v1/audit", GET: ["audit", 200] },
  { route: "/api/v1/chains", GET: ["read", 200] },
  { route: "/api/v1/chains/[chainId]", GET: ["read", 404] },
  { route: "/api/v1/chains/[chainId]/checks", GET: ["read", 200], POST: ["respond", 404] },
  { route: "/api/v1/chains/[chainId]/reconcile", POST: ["respond", 422, {}] },
  { route: "/api/v1/checks/config", GET: ["read", 200], PUT: ["config", 422, {}] },
  { route: "/api/v1/chains/[chainId]/triage", GET: ["read", 404], POST: ["respond", 422, {}] },
  { route: "/api/v1/coverage", GET: ["read", 200] },
  { route: "/api/v1/facets", GET: ["read", 200] },
  { route: "/api/v1/keys", GET: ["manage", 200], POST: ["manage", 422, {}] },
  { route: "/api/v1/keys/[name]", DELETE: ["manage", 404] },
  {
    route: "/api/v1/me/notification-target",
    GET: ["self", 200],
    PUT: ["self", 422, {}],
    DELETE: ["self", 200],
  },
  { route: "/api/v1/me/notification-target/test", POST: ["self", 422] },
  { route: "/api/v1/me/password", POST: ["self", 422, {}] },
  { route: "/api/v1/me/sessions", GET: ["self", 200] },
  { route: "/api/v1/me/sessions/[id]", DELETE: ["self", 404] },
  // Ends the caller's other sessions: each caller here has only the one it is using.
  { route: "/api/v1/me/sessions/revoke-others", POST: ["self", 200] },
  // An operation nobody has seen is status `none`, not a 404: the guard's answer to a first attempt.
  { route: "/api/v1/operations/[key]", GET: ["read", 200] },
  { route: "/api/v1/operations/[key]/attempts", POST: ["ingest", 422, {}] },
  { route: "/api/v1/operations/[key]/checks", POST: ["respond", 404] },
  { route: "/api/v1/operations/[key]/settle", POST: ["respond", 422, {}] },
  { route: "/api/v1/problems", GET: ["read", 200] },
  { route: "/api/v1/problems/[key]/assignee", POST: ["respond", 422, {}] },
  { route: "/api/v1/problems/[key]/reopen", POST: ["respond", 404] },
  { route: "/api/v1/problems/[key]/resolve", POST: ["respond", 404] },
  { route: "/api/v1/problems/below", GET: ["read", 400] },
  { route: "/api/v1/problems/resolve", POST: ["respond", 422, {}] },
  { route: "/api/v1/queues/[queue]", GET: ["read", 200] },
  { route: "/api/v1/records", POST: ["ingest", 422, {}] },
  { route: "/api/v1/resolutions/[id]/undo", POST: ["respond", 404] },
  { route: "/api/v1/routing/alerts", GET: ["read", 200] },
  { route: "/api/v1/routing/alerts/[fingerprint]/assignee", POST: ["respond", 422, {}] },
  { route: "/api/v1/routing/alerts/[fingerprint]/resolve", POST: ["respond", 404] },
  { route: "/api/v1/routing/alerts/groups", GET: ["read", 200] },
  { route: "/api/v1/routing/config", GET: ["read", 200], PUT: ["config", 422, {}] },
  { route: "/api/v1/routing/config/check", POST: ["config", 422, {}] },
  { route: "/api/v1/routing/config/versions", GET: ["read", 200] },
  { route: "/api/v1/routing/config/versions/[id]", GET: ["read", 404] },
  { route: "/api/v1/routing/config/versions/[id]/restore", POST: ["config", 404] },
  { route: "/api/v1/routing/deliveries", GET: ["read", 200] },
  { route: "/api/v1/routing/targets/health", GET: ["read", 200] },
  { route: "/api/v1/routing/deliveries/[id]/retry", POST: ["respond", 404] },
  { route: "/api/v1/routing/route-test", POST: ["read", 422, {}] },
  { route: "/api/v1/routing/silences", GET: ["read", 200], POST: ["respond", 422, {}] },
  { route: "/api/v1/routing/silences/[id]", PUT: ["respond", 422, {}], DELETE: ["respond", 404] },
  { route: "/api/v1/routing/silences/preview", POST: ["read", 422, {}] },
  { route: "/api/v1/routing/test-notification", POST: ["manage", 422, {}] },
  { route: "/api/v1/search", GET: ["read", 400] },
  { route: "/api/v1/search/label-values", GET: ["read", 400] },
  { route: "/api/v1/sessions/[sessionId]", GET: ["read", 404] },
  { route: "/api/v1/stats", GET: ["read", 200] },
  { route: "/api/v1/stats/trend", GET: ["read", 200] },
  { route: "/api/v1/users", GET: ["read", 200] },
  { route: "/api/v1/users/[id]", PATCH: ["manage", 422, { role: "owner" }] },
  { route: "/api/v1/users/invites", GET: ["manage", 200], POST: ["manage", 422, {}] },
  { route: "/api/v1/users/invites/[id]", DELETE: ["manage", 404] },
  { route: "/metrics", GET: ["read", 200] },
  { route: "/v1/traces", POST: ["ingest", 200, {}] },
];

function pub(allowed: number, body?: unknown): Taken {
  return ["public", allowed, body];
}

/** A value for each dynamic segment: well-formed, naming nothing that exists (so a write finds nothing to change). */
const SEGMENTS: Record<string, string> = {
  "[...unknown]": "no-such-endpoint",
  "[chainId]": "no-such-chain",
  "[name]": "no-such-key",
  "[key]": "no-such-problem",
  "[queue]": "false-success",
  "[fingerprint]": "0000000000000000",
  "versions/[id]": "999999999",
  "deliveries/[id]": "00000000-0000-4000-8000-000000000000",
  "silences/[id]": "00000000-0000-4000-8000-000000000000",
  "[sessionId]": "no-such-session",
  "[token]": "no-such-invitation-token",
  "users/[id]": "00000000-0000-4000-8000-000000000000",
  "invites/[id]": "00000000-0000-4000-8000-000000000000",
  "sessions/[id]": "00000000-0000-4000-8000-000000000000",
  "resolutions/[id]": "00000000-0000-4000-8000-000000000000",
};

const CALLERS = ["nobody", "viewer", "responder", "admin", "ingestKey", "readKey", "adminKey"] as const;
type Caller = (typeof CALLERS)[number];

/** What each caller gets, by the route's access: a status and code when refused, "allowed" otherwise. */
type Outcome = "allowed" | "401 unauthorized" | "403 insufficient_role" | "403 forbidden";
const A = "allowed";
const U = "401 unauthorized";
const R = "403 insufficient_role";
const F = "403 forbidden";
const EXPECTED: Record<Access, Record<Caller, Outcome>> = {
  // nobody, viewer, responder, admin, ingest key, read key, admin key
  public: row(A, A, A, A, A, A, A),
  session: row(U, A, A, A, U, U, U),
  ingest: row(U, F, F, F, A, F, F),
  read: row(U, A, A, A, F, A, A),
  respond: row(U, R, A, A, F, F, F),
  manage: row(U, R, R, A, F, F, F),
  config: row(U, R, R, A, F, F, A),
  self: row(U, A, A, A, F, F, F),
  audit: row(U, R, R, A, F, F, A),
};

function row(...outcomes: Outcome[]): Record<Caller, Outcome> {
  return Object.fromEntries(CALLERS.map((caller, i) => [caller, outcomes[i]])) as Record<Caller, Outcome>;
}

const appDir = path.resolve(import.meta.dirname, "../../app");
const METHOD_NAMES = METHODS.join("|");

/** Every `route.ts` under app/ as its URL pattern, with the methods it exports. */
function routesInApp(): Map<string, Method[]> {
  const found = new Map<string, Method[]>();
  for (const file of readdirSync(appDir, { recursive: true, encoding: "utf8" })) {
    if (path.basename(file) !== "route.ts") continue;
    const route = `/${path.dirname(file).split(path.sep).filter(isUrlSegment).join("/")}`;
    const source = readFileSync(path.join(appDir, file), "utf8");
    const direct = source.matchAll(
      new RegExp(`export (?:const|(?:async )?function) (${METHOD_NAMES})\\b`, "g"),
    );
    const aliased = source.matchAll(new RegExp(`\\bas (${METHOD_NAMES})\\b`, "g"));
    found.set(route, [...direct, ...aliased].map((match) => match[1] as Method).sort());
  }
  return found;
}

/** Route groups `(dashboard)` are not part of the URL. */
const isUrlSegment = (segment: string) => !(segment.startsWith("(") && segment.endsWith(")"));

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
const credentials = {} as Record<Caller, Record<string, string>>;

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startApp(db.url);
  const users = await Promise.all(
    (["viewer", "responder", "admin"] as const).map((role) => createTeamUser(db.url, `route-${role}`, role)),
  );
  const cookies = await Promise.all(
    users.map((user) => signInCookie(app.baseUrl, user.username, user.password)),
  );
  credentials.nobody = {};
  users.forEach((user, i) => {
    credentials[user.role] = { cookie: cookies[i] ?? "", origin: app.baseUrl };
  });
  for (const [caller, scope] of [
    ["ingestKey", "ingest"],
    ["readKey", "read"],
    ["adminKey", "admin"],
  ] as const) {
    const response = await send(credentials.admin, "POST", "/api/v1/keys", { name: caller, scopes: [scope] });
    if (response.status !== 201) throw new Error(`creating ${caller}: ${await response.text()}`);
    credentials[caller] = { authorization: `Bearer ${((await response.json()) as { key: string }).key}` };
  }
});
afterAll(async () => {
  await app?.stop();
  await db?.drop();
});

function send(headers: Record<string, string>, method: Method, url: string, body?: unknown) {
  return fetch(`${app.baseUrl}${url}`, {
    method,
    headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

const urlOf = (route: string) =>
  route
    .split("/")
    .map((segment, i, all) => SEGMENTS[`${all[i - 1]}/${segment}`] ?? SEGMENTS[segment] ?? segment)
    .join("/");

type RouteCase = { method: Method; route: string; access: Access; allowed: number; body?: unknown };

/** The table's rows, one per method, plus a 405 row for every other method each route file exports. */
function routeCases(): RouteCase[] {
  const cases: RouteCase[] = [];
  for (const [route, exported] of routesInApp()) {
    const row = ROUTES.find((entry) => entry.route === route);
    for (const method of exported) {
      const [access, allowed, body] =
        row?.[method] ?? pub(405, method === "GET" || method === "HEAD" ? undefined : {});
      cases.push({ method, route, access, allowed, body });
    }
  }
  return cases.sort((a, b) => `${a.route} ${a.method}`.localeCompare(`${b.route} ${b.method}`));
}

/** What one caller got: "allowed" when the status is the route's `allowed`, else the status and error code. */
async function outcomeFor(caller: Caller, { method, route, allowed, body }: RouteCase): Promise<string> {
  const response = await send(credentials[caller], method, urlOf(route), body);
  const text = await response.text();
  if (response.status === allowed && response.status !== 401 && response.status !== 403) return "allowed";
  const code = text ? ((JSON.parse(text) as { error?: { code?: string } }).error?.code ?? "?") : "(no body)";
  return `${response.status} ${code}`;
}

async function outcomesFor(entry: RouteCase): Promise<Record<Caller, string>> {
  const outcomes = await Promise.all(CALLERS.map((caller) => outcomeFor(caller, entry)));
  return Object.fromEntries(CALLERS.map((caller, i) => [caller, outcomes[i]])) as Record<Caller, string>;
}

const isSignOut = (entry: RouteCase) => entry.method === "POST" && entry.route === "/api/auth/sign-out";
const CASES = routeCases();

describe("every route × every caller", () => {
  it("the table has one row for each route file under app/, and each method it lists is exported", () => {
    const inApp = routesInApp();
    expect(ROUTES.map((entry) => entry.route).sort()).toEqual([...inApp.keys()].sort());
    for (const entry of ROUTES) {
      const listed = METHODS.filter((method) => entry[method] !== undefined);
      expect(inApp.get(entry.route), entry.route).toEqual(expect.arrayContaining(listed));
    }
  });

  // The rows run in parallel, each sending its seven callers at once. Signing out would end the sessions under the
  // others, so it goes last, in a test of its own after this block.
  describe.concurrent("routes", () => {
    it.each(
      CASES.filter((entry) => !isSignOut(entry)).map((entry) => [`${entry.method} ${entry.route}`, entry]),
    )("%s", async (_, entry) => {
      expect(await outcomesFor(entry)).toEqual(EXPECTED[entry.access]);
    });
  });

  it("POST /api/auth/sign-out (last: it ends the callers' sessions)", async () => {
    const entry = CASES.find(isSignOut) as RouteCase;
    expect(await outcomesFor(entry)).toEqual(EXPECTED[entry.access]);
    // It did end them: the same cookie reads nothing any more.
    expect((await send(credentials.viewer, "GET", "/api/v1/stats")).status).toBe(401);
  });
});
