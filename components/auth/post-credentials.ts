/** Posts {username, password} from a form; returns null on success, else a message fit to show the user. */
export async function postCredentials(path: string, form: FormData): Promise<string | null> {
  try {
    const response = await fetch(path, {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: form.get("username"), password: form.get("password") }),
    });
    if (response.ok) return null;
    const body = (await response.json().catch(() => null)) as {
      error?: { code: string; message: string; issues?: { path: string; message: string }[] };
    } | null;
    if (body?.error?.code === "invalid_credentials") return "Wrong username or password.";
    if (body?.error?.code === "too_many_attempts") {
      return `Too many failed sign-ins: try again in ${response.headers.get("retry-after") ?? "a few"} s.`;
    }
    const issue = body?.error?.issues?.[0];
    if (issue) return `${issue.path === "$.password" ? "Password" : "Username"}: ${issue.message}.`;
    return body?.error?.message ?? `The server answered ${response.status}.`;
  } catch {
    return "The server could not be reached. Is Receipt running?";
  }
}
