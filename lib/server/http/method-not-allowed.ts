import { ApiError } from "./api-error";
import { finishUnreadBody } from "./api-route";

/**
 * The handler for the methods a route does not take: 405 in the API's error shape, with `Allow`. Next.js answers an
 * unexported method with an empty 405 of its own, which tells a client neither the code nor what to send instead.
 */
export function methodNotAllowed(...allowed: string[]) {
  return async (request: Request): Promise<Response> => {
    const response = new ApiError(405, "method_not_allowed", `this endpoint takes ${allowed.join(", ")}`, [
      { path: "$.method", code: "method_not_allowed", message: `${request.method} is not allowed here` },
    ]).toResponse();
    response.headers.set("allow", allowed.join(", "));
    return finishUnreadBody(request, response);
  };
}
