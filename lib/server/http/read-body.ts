import { type ApiError, bodyIncomplete } from "./api-error";

/**
 * The request's body as bytes, never buffering past `maxBytes`: a declared Content-Length over it, or a stream that
 * grows past it, throws `tooLarge()` (a 413) at once instead of reading whatever a client sends. A client that hangs up
 * mid-body gets `bodyIncomplete()`.
 */
export async function readBodyLimited(
  request: Request,
  maxBytes: number,
  tooLarge: () => ApiError,
): Promise<Buffer> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (declared > maxBytes) throw tooLarge();
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read().catch(() => {
      throw bodyIncomplete();
    });
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
