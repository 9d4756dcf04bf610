import { z } from "zod";
import { newDeviceId } from "@/lib/auth/known-device";
import { ApiError } from "../http/api-error";
import { apiRoute, reply } from "../http/api-route";
import { readJson } from "../http/read-json";
import { rejectForeignOrigin } from "../http/same-origin";
import {
  clearedSessionCookie,
  completeFirstRunSetup,
  needsFirstRunSetup,
  readSessionToken,
  sessionCookie,
  signIn,
  signOut,
  userForToken,
} from "./sessions";
import { knownDeviceSetCookie } from "./known-devices";
import { beginSignInAttempt } from "./sign-in-throttle";

const ZCredentials = z.object({
  username: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, "1–64 letters, digits, '.', '_' or '-'"),
  password: z.string().min(8, "at least 8 characters").max(256),
});

/** A username and a password fit in far less; anything bigger is refused before it is parsed. */
const CREDENTIALS_MAX_BYTES = 4096;

/** The credentials of a sign-in or setup: JSON only (415 otherwise), from this site only (403 otherwise). */
async function readCredentials(request: Request) {
  rejectForeignOrigin(request);
  // A form post (urlencoded, multipart, text/plain) needs no CORS preflight: JSON only closes that door.
  const contentType = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (contentType !== "application/json") {
    throw new ApiError(415, "unsupported_media_type", "Content-Type must be application/json", [
      {
        path: '$.headers["content-type"]',
        code: "unsupported_media_type",
        message: "expected application/json",
      },
    ]);
  }
  if (Number(request.headers.get("content-length")) > CREDENTIALS_MAX_BYTES) {
    throw new ApiError(413, "payload_too_large", `the body exceeds ${CREDENTIALS_MAX_BYTES} bytes`, [
      { path: "$", code: "payload_too_large", message: `at most ${CREDENTIALS_MAX_BYTES} bytes` },
    ]);
  }
  const parsed = ZCredentials.safeParse(await readJson(request, CREDENTIALS_MAX_BYTES));
  if (!parsed.success) {
    throw new ApiError(
      422,
      "invalid_credentials_format",
      "username and password are required",
      parsed.error.issues.map((issue) => ({
        path: issue.path.length > 0 ? `$.${issue.path.join(".")}` : "$",
        code: issue.code,
        message: issue.message,
      })),
    );
  }
  return parsed.data;
}

const isHttps = (request: Request) =>
  new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";

/** For the methods a POST-only route does not take: 405 with `Allow: POST`, in the API's error shape. */
export const postOnly = async () => {
  const response = new ApiError(405, "method_not_allowed", "this endpoint takes POST only").toResponse();
  response.headers.set("allow", "POST");
  return response;
};

// Public routes: the caller is who they will be once signed in. apiRoute maps their errors as it does every route's.
export const signInRoute = apiRoute({ scope: "public" }, async ({ request }) => {
  const { username, password } = await readCredentials(request);
  const attempt = await beginSignInAttempt(username, request);
  const session = await signIn(username, password, request);
  if (!session) {
    attempt.failed();
    throw new ApiError(401, "invalid_credentials", "wrong username or password");
  }
  await attempt.succeeded();
  const secure = isHttps(request);
  return reply(
    { user: { username: session.user.username, role: session.user.role } },
    {
      headers: [
        ["set-cookie", sessionCookie(session.token, secure)],
        // This browser is now a known device of the account: an attack on the account elsewhere does not slow it.
        ["set-cookie", await knownDeviceSetCookie(session.user.username, attempt.deviceId, secure)],
      ],
    },
  );
});

/** POST only, from this site only: a cross-site page must not be able to end a session either. */
export const signOutRoute = apiRoute({ scope: "public" }, async ({ request }) => {
  rejectForeignOrigin(request);
  const token = readSessionToken(request.headers.get("cookie"));
  if (token) await signOut(token);
  return reply({ ok: true }, { headers: { "set-cookie": clearedSessionCookie() } });
});

export const meRoute = apiRoute({ scope: "public" }, async ({ request }) => {
  const user = await userForToken(readSessionToken(request.headers.get("cookie")));
  if (!user) throw new ApiError(401, "unauthorized", "not signed in");
  return { user: { username: user.username, role: user.role } };
});

/** First-run setup: creates the first admin, only while no admin can sign in. */
export const setupRoute = apiRoute({ scope: "public" }, async ({ request }) => {
  const { username, password } = await readCredentials(request);
  // Checked before the password is hashed, so a closed setup costs no scrypt run; the insert checks again atomically.
  const created = (await needsFirstRunSetup())
    ? await completeFirstRunSetup(username, password)
    : "admin_exists";
  if (created === "admin_exists")
    throw new ApiError(409, "already_set_up", "an admin already exists; sign in instead");
  if (created === "username_taken") {
    throw new ApiError(409, "username_taken", "another user has this name; choose another for the admin", [
      { path: "$.username", code: "username_taken", message: "this username is taken" },
    ]);
  }
  const session = await signIn(username, password, request);
  const secure = isHttps(request);
  return reply(
    { user: { username } },
    {
      headers: session
        ? [
            ["set-cookie", sessionCookie(session.token, secure)],
            ["set-cookie", await knownDeviceSetCookie(username, newDeviceId(), secure)],
          ]
        : [],
    },
  );
});
