import { ApiError } from "@/lib/server/http/api-error";

export const dynamic = "force-dynamic";

// An API client that asks for a path no route answers gets the API's JSON error, not the dashboard's HTML 404 page.
const notFound = () =>
  new ApiError(404, "not_found", "no API endpoint at this path", [
    { path: "$.path", code: "not_found", message: "no API endpoint at this path" },
  ]).toResponse();

export const GET = notFound;
export const HEAD = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
