import { z } from "zod";
import { isDatabaseUnavailable } from "../db/availability";
import { ApiError, databaseUnavailable } from "../http/api-error";
import {
  clearedSessionCookie,
  completeFirstRunSetup,
  readSessionToken,
  sessionCookie,
  signIn,
  signOut,
  userForToken,
} from "./sessions";

const ZCredentials = z.object({
  username: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, "1–64 letters, digits, '.', '_' or '-'"),
  password: z.string().min(8, "at least 8 characters").max(256),
});

async function readCredentials(request: Request) {
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    throw new ApiError(400, "invalid_json", "the body is not valid JSON", [
      { path: "$", code: "invalid_json", message: "not JSON" },
    ]);
  }
  const parsed = ZCredentials.safeParse(body);
  if (!parsed.success) {
    throw new ApiError(
      422,
      "invalid_credentials_format",
      "username and password are required",
      parsed.error.issues.map((issue) => ({
        path: `$.${issue.path.join(".")}`,
        code: issue.code,
        message: issue.message,
      })),
    );
  }
  return parsed.data;
}

const isHttps = (request: Request) =>
  new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";

function withErrors(handler: (request: Request) => Promise<Response>) {
  return async (request: Request) => {
    try {
      return await handler(request);
    } catch (error) {
      if (error instanceof ApiError) return error.toResponse();
      if (isDatabaseUnavailable(error)) return databaseUnavailable().toResponse();
      console.error("receipt: auth route failed:", error instanceof Error ? error.name : "unknown");
      return new ApiError(500, "internal_error", "internal error").toResponse();
    }
  };
}

export const signInRoute = withErrors(async (request) => {
  const { username, password } = await readCredentials(request);
  const session = await signIn(username, password);
  if (!session) throw new ApiError(401, "invalid_credentials", "wrong username or password");
  return Response.json(
    { user: { username: session.user.username, role: session.user.role } },
    { headers: { "set-cookie": sessionCookie(session.token, isHttps(request)) } },
  );
});

export const signOutRoute = withErrors(async (request) => {
  const token = readSessionToken(request.headers.get("cookie"));
  if (token) await signOut(token);
  return Response.json({ ok: true }, { headers: { "set-cookie": clearedSessionCookie() } });
});

export const meRoute = withErrors(async (request) => {
  const user = await userForToken(readSessionToken(request.headers.get("cookie")));
  if (!user) throw new ApiError(401, "unauthorized", "not signed in");
  return Response.json({ user: { username: user.username, role: user.role } });
});

/** First-run setup: creates the first admin, only while no user exists. */
export const setupRoute = withErrors(async (request) => {
  const { username, password } = await readCredentials(request);
  if (!(await completeFirstRunSetup(username, password))) {
    throw new ApiError(409, "already_set_up", "an admin already exists; sign in instead");
  }
  const session = await signIn(username, password);
  return Response.json(
    { user: { username } },
    { headers: session ? { "set-cookie": sessionCookie(session.token, isHttps(request)) } : {} },
  );
});
