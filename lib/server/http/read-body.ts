import { type ApiError, bodyIncomplete } from "./api-error";
import { bufferedBodyBytes } from "./buffered-body";

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
  const buffered = bufferedBodyBytes(request);
  if (buffered !== undefined) {
    // A fast lane read the body already, up to one byte past its limit (node-web-handler.ts).
    if (buffered === null) return Buffer.alloc(0);
    if (buffered.byteLength > maxBytes) throw tooLarge();
    return Buffer.from(buffered.buffer, buffered.byteOffset, buffered.byteLength);
  }
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
