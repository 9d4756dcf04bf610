/** Signs in to a running app as its admin (first-run setup on a fresh database) and returns the session cookie. */
export async function adminCookie(baseUrl: string, password = "correct horse battery"): Promise<string> {
  const body = JSON.stringify({ username: "admin", password });
  const init = { method: "POST", headers: { "content-type": "application/json" }, body };
  let response = await fetch(`${baseUrl}/api/auth/setup`, init);
  if (response.status === 409) response = await fetch(`${baseUrl}/api/auth/sign-in`, init);
  if (!response.ok) throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
  return (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
}

/** The dashboard's own calls, as the browser makes them: cookie-authenticated JSON. */
export function dashboardClient(baseUrl: string, cookie: string) {
  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        cookie,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
  return {
    get: (path: string) => send("GET", path),
    post: (path: string, body: unknown, headers?: Record<string, string>) =>
      send("POST", path, body, headers),
    del: (path: string) => send("DELETE", path),
    json: async <T>(path: string): Promise<T> => {
      const response = await send("GET", path);
      if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as T;
    },
  };
}
