import pg from "pg";

/** A signed-in user's (or nobody's) calls to the API: cookie, JSON both ways. */
export function userApi(baseUrl: string, cookie: string | null) {
  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(cookie ? { cookie } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
  return {
    get: (path: string) => send("GET", path),
    post: (path: string, body?: unknown, headers?: Record<string, string>) =>
      send("POST", path, body, headers),
    patch: (path: string, body: unknown) => send("PATCH", path, body),
    del: (path: string) => send("DELETE", path),
  };
}

/** The first cookie of a Set-Cookie header (`receipt_session=…`). */
export const cookieOf = (response: Response) =>
  (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";

/** One SQL statement against the test database, for what the API must not offer (ageing a row, reading audits). */
export async function sql<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** The token of a join link (`/join?token=…`). */
export const tokenOf = (link: string) => new URL(link, "http://x").searchParams.get("token") ?? "";

/** Expect an API error with this status, code and (when given) the JSON path of its first issue. */
export async function errorOf(response: Response) {
  const body = (await response.json()) as {
    error: { code: string; issues?: { path: string; code: string }[] };
  };
  return { status: response.status, code: body.error.code, path: body.error.issues?.[0]?.path };
}
