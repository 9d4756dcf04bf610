import type { z } from "zod";
import { isDatabaseUnavailable } from "../db/availability";
import { parseQuery } from "../reading/chain-query";
import { jsonResponse } from "./json-response";
import { ApiError, databaseUnavailable } from "./api-error";
import { type AccessScope, authenticate, type Caller } from "./authenticate";
import { checkPathParams } from "./path-params";
import { parseBody, readJson } from "./read-json";

type Schema = z.ZodType | undefined;
type Parsed<S extends Schema> = S extends z.ZodType ? z.infer<S> : undefined;

/** What a route accepts: who may call it, and the zod schemas of its path segments, query string and JSON body. */
export type RouteScope = AccessScope | "public";

export type RouteSpec<
  S extends RouteScope,
  P extends Schema,
  Q extends Schema,
  B extends Schema,
  F = undefined,
> = {
  /** Who may call it; `public`: anyone (sign-in, setup), the handler checks what it needs itself. */
  scope: S;
  /** The dynamic path segments (`[chainId]`): one that does not parse is 404 `not_found` at `$.params.<name>`. */
  params?: P;
  /** The query string, parsed with `parseQuery` (400 `invalid_query`, each issue at `$.query.<name>`). */
  query?: Q;
  /** Query parameters that may repeat (kept as arrays); any other repeated one is an error. */
  repeatable?: string[];
  /** The JSON body: 415 unless application/json, 413 past `maxBytes`, 422 `invalid_body` with JSON paths. */
  body?: B;
  /** The body's size limit (default 64 KiB). */
  maxBytes?: number;
  /**
   * A read started from the path alone while the caller is authenticated, so the two round trips to the database
   * overlap (the retry guard's facts); its result reaches the handler as `prefetched`. It must only read: when the
   * caller is refused, it is dropped unseen.
   */
  prefetch?: (params: Parsed<P>) => Promise<F>;
};

export type RouteInput<
  S extends RouteScope,
  P extends Schema,
  Q extends Schema,
  B extends Schema,
  F = undefined,
> = {
  request: Request;
  caller: S extends "public" ? null : Caller;
  params: Parsed<P>;
  query: Parsed<Q>;
  body: Parsed<B>;
  /** What `prefetch` read; undefined without one. */
  prefetched: F | undefined;
};

const REPLY = Symbol("reply");

/** Data answered with a status or headers other than 200 and none. */
export type Reply<T> = { [REPLY]: true; data: T; status: number; headers: HeadersInit };

/** `headers` as pairs when one repeats (two Set-Cookie). */
export function reply<T>(data: T, init: { status?: number; headers?: HeadersInit }): Reply<T> {
  return { [REPLY]: true, data, status: init.status ?? 200, headers: init.headers ?? {} };
}

const isReply = (value: unknown): value is Reply<unknown> =>
  typeof value === "object" && value !== null && REPLY in value;

/**
 * The one shape of an API route (Langfuse's createAuthedRoute, in small): refuse path segments no id can hold,
 * authenticate with `scope`, parse the query and the body with their schemas, run the handler, and answer the data
 * it returns as JSON (`reply` for another status or headers; a `Response` only for what is not JSON, such as a file
 * download). The one place errors become responses: an ApiError its status, an unreachable database a 503 with
 * Retry-After, anything else a 500 that reveals nothing.
 */
export function apiRoute<
  R,
  S extends RouteScope,
  P extends Schema = undefined,
  Q extends Schema = undefined,
  B extends Schema = undefined,
  F = undefined,
>(
  spec: RouteSpec<S, P, Q, B, F>,
  handler: (input: RouteInput<S, P, Q, B, F>) => Promise<R | Reply<R> | Response>,
) {
  return async (
    request: Request,
    context: { params: Promise<Record<string, string>> },
  ): Promise<Response> => {
    try {
      const raw = await context.params;
      checkPathParams(raw);
      const params = (spec.params ? parsePathParams(spec.params, raw) : undefined) as Parsed<P>;
      const prefetching = spec.prefetch?.(params);
      // Runs beside the authentication; its result is used only once the caller is let in, and a refused caller's
      // read may fail unobserved.
      prefetching?.catch(() => {});
      const caller = (
        spec.scope === "public" ? null : await authenticate(request, spec.scope as AccessScope)
      ) as RouteInput<S, P, Q, B, F>["caller"];
      const url = new URL(request.url);
      const query = (spec.query ? parseQuery(spec.query, url, spec.repeatable) : undefined) as Parsed<Q>;
      const body = (
        spec.body ? parseBody(spec.body, await readJson(request, spec.maxBytes)) : undefined
      ) as Parsed<B>;
      const prefetched = await prefetching;
      const result = await handler({ request, caller, params, query, body, prefetched });
      if (result instanceof Response) return result;
      if (isReply(result)) return jsonResponse(result.data, result.status, result.headers, request);
      return jsonResponse(result, 200, {}, request);
    } catch (error) {
      if (error instanceof ApiError) return finishUnreadBody(request, error.toResponse());
      if (isDatabaseUnavailable(error)) {
        console.error(`receipt: ${request.method} ${new URL(request.url).pathname}: database unavailable`);
        return finishUnreadBody(request, databaseUnavailable().toResponse());
      }
      console.error(
        `receipt: ${request.method} ${new URL(request.url).pathname} failed:`,
        errorSummary(error),
      );
      return new ApiError(500, "internal_error", "internal error").toResponse();
    }
  };
}

function parsePathParams(schema: z.ZodType, raw: Record<string, string>): unknown {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw new ApiError(
    404,
    "not_found",
    "no such resource",
    parsed.error.issues.map((issue) => ({
      path: `$.path.${String(issue.path[0] ?? "")}`,
      code: issue.code,
      message: issue.message,
    })),
  );
}

/**
 * A request refused before its body was read (401, 403, 415) still has that body in flight: answering before it is
 * consumed makes HTTP clients see a reset socket instead of the error. Drain it (within the API's size limit);
 * past the limit, ask the client to close the connection.
 */
export async function finishUnreadBody(request: Request, response: Response): Promise<Response> {
  if (!request.body || request.bodyUsed) return response;
  let size = 0;
  try {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return response;
      size += value.byteLength;
      if (size > DRAIN_LIMIT_BYTES) {
        await reader.cancel();
        break;
      }
    }
  } catch {}
  response.headers.set("connection", "close");
  return response;
}

const DRAIN_LIMIT_BYTES = 5 * 1024 * 1024;

// Log the error's name and message only: a driver error could quote a bound value.
function errorSummary(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message.slice(0, 300)}` : "unknown error";
}
