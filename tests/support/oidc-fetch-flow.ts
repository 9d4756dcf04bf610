/** Cookies per origin, as a browser keeps them for one person: what fetch does not do. */
export class CookieJar {
  private readonly byOrigin = new Map<string, Map<string, string>>();

  header(url: string): string {
    const cookies = this.byOrigin.get(new URL(url).origin) ?? new Map();
    return [...cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  store(url: string, response: Response): void {
    const origin = new URL(url).origin;
    const cookies = this.byOrigin.get(origin) ?? new Map<string, string>();
    this.byOrigin.set(origin, cookies);
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const at = pair.indexOf("=");
      const [name, value] = [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
      if (/max-age=0/i.test(line) || value === "") cookies.delete(name);
      else cookies.set(name, value);
    }
  }

  get(origin: string, name: string): string | undefined {
    return this.byOrigin.get(origin)?.get(name);
  }

  set(origin: string, name: string, value: string): void {
    const cookies = this.byOrigin.get(origin) ?? new Map<string, string>();
    this.byOrigin.set(origin, cookies);
    cookies.set(name, value);
  }

  delete(origin: string, name: string): void {
    this.byOrigin.get(origin)?.delete(name);
  }
}

export type FlowResult = {
  /** Where the app sent the browser at the end: `/chains`, `/sign-in?error=…`. */
  landedOn: string;
  /** `receipt_session=…` when a session was started. */
  sessionCookie: string | null;
};

/**
 * Signs in through the provider as a browser would, with fetch: the app's start route, the provider's login form
 * (any password) and consent page, the redirect back to the app's callback — every redirect followed by hand, each
 * origin's cookies carried. `alterCallback` changes the provider's answer before the browser delivers it (a tampered
 * state, a lost flow cookie).
 */
export async function signInThroughProvider(
  appBaseUrl: string,
  login: string,
  options: { next?: string; alterCallback?: (url: URL, jar: CookieJar) => void } = {},
): Promise<FlowResult> {
  const jar = new CookieJar();
  let url = `${appBaseUrl}/api/auth/oidc/start?next=${encodeURIComponent(options.next ?? "/")}`;
  let form: URLSearchParams | undefined;
  for (let step = 0; step < 20; step++) {
    const response = await fetch(url, {
      method: form ? "POST" : "GET",
      redirect: "manual",
      headers: {
        cookie: jar.header(url),
        ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      body: form,
    });
    jar.store(url, response);
    form = undefined;
    if (response.status >= 300 && response.status < 400) {
      const next = new URL(response.headers.get("location") ?? "", url);
      await response.body?.cancel();
      if (next.origin === appBaseUrl && !next.pathname.startsWith("/api/auth/oidc/")) {
        const session = jar.get(appBaseUrl, "receipt_session");
        return {
          landedOn: next.pathname + next.search,
          sessionCookie: session ? `receipt_session=${session}` : null,
        };
      }
      if (next.origin === appBaseUrl && next.pathname === "/api/auth/oidc/callback")
        options.alterCallback?.(next, jar);
      url = next.href;
      continue;
    }
    const html = await response.text();
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${html.slice(0, 500)}`);
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
    if (!action || !prompt) throw new Error(`no login or consent form at ${url}: ${html.slice(0, 500)}`);
    form = new URLSearchParams(prompt === "login" ? { prompt, login, password: "any password" } : { prompt });
    url = new URL(action.replaceAll("&amp;", "&"), url).href;
  }
  throw new Error("the sign-in did not come back to the app within 20 steps");
}
