import type { AccessScope } from "./authenticate";
import { isDatabaseUnavailable } from "../db/availability";
import { ApiError, databaseUnavailable } from "./api-error";
import { authenticate, type Caller } from "./authenticate";
import { checkPathParams } from "./path-params";

type Handler<P> = (input: { request: Request; caller: Caller; params: P }) => Promise<Response>;

/**
 * The one place API errors become responses (Langfuse's createAuthedRoute, in small): refuse path segments no id can
 * hold, authenticate with `scope`, run the handler, map ApiError to its status, an unreachable database to a 503
 * with Retry-After, and anything else to a 500 that reveals nothing.
 */
export function apiRoute<P = Record<string, never>>(scope: AccessScope, handler: Handler<P>) {
  return async (request: Request, context: { params: Promise<P> }): Promise<Response> => {
    try {
      const params = await context.params;
      checkPathParams(params);
      const caller = await authenticate(request, scope);
      return await handler({ request, caller, params });
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
