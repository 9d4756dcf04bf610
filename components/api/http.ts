import type { ApiErrorBody } from "@/lib/dashboard/api-types";

/** An API answer that was not 2xx, with the API's stable code and the JSON paths of what was wrong. */
export class ApiClientError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues: { path: string; code: string; message: string }[] = [],
  ) {
    super(message);
  }

  /** The message of the issue at `path` (e.g. "$.owner"), for showing next to its form field. */
  issueAt(path: string): string | undefined {
    return this.issues.find((issue) => issue.path === path)?.message;
  }
}

let signingOut = false;

/** Signing out on purpose: a live query answered 401 meanwhile must not send the user to "sign in and come back". */
export function startSigningOut() {
  signingOut = true;
}

/**
 * fetch for the dashboard's own API: same-origin cookie, JSON both ways. A 401 means the session ended (expired or
 * signed out in another tab): go to sign-in and come back here afterwards.
 */
export async function apiFetch<T>(
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<T> {
  const response = await fetch(path, {
    method: init.method ?? "GET",
    credentials: "same-origin",
    headers: { ...(init.body === undefined ? {} : { "content-type": "application/json" }), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  if (response.status === 401 && typeof window !== "undefined" && !signingOut) {
    const here = window.location.pathname + window.location.search;
    window.location.assign(`/sign-in?next=${encodeURIComponent(here)}`);
  }
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as ApiErrorBody | null;
    throw new ApiClientError(
      response.status,
      body?.error.code ?? "http_error",
      body?.error.message ?? `the server answered ${response.status}`,
      body?.error.issues,
    );
  }
  return (await response.json()) as T;
}

/** A query string from defined values only; repeated keys for arrays (label=a:b&label=c:d). */
export function queryString(params: Record<string, string | string[] | number | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null || value === "") continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(key, String(item));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}
