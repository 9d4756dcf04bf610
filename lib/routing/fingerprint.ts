// A tiny, dependency-free, client-safe hash for alert fingerprints. FNV-1a 64-bit is not
// cryptographic; it only needs to be stable and well-spread so receivers can deduplicate.

const encoder = new TextEncoder();

/**
 * FNV-1a 64 over the UTF-8 bytes of `text`, as 16 lowercase hex digits. The 64-bit state is two 32-bit halves:
 * BigInt arithmetic per byte made hashing a tenth of ingesting an alert storm. The prime is 2^40 + 0x1b3, so
 * multiplying is a shift of the low half into the high one plus a product that stays exact in a double.
 */
export function fnv1a64(text: string): string {
  // Ids are ASCII in practice: their characters are their UTF-8 bytes, with no encoding step.
  const bytes = isAscii(text) ? null : encoder.encode(text);
  const length = bytes ? bytes.length : text.length;
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  for (let i = 0; i < length; i++) {
    lo ^= bytes ? (bytes[i] as number) : text.charCodeAt(i);
    const low = (lo >>> 0) * 0x1b3;
    hi = (hi * 0x1b3 + Math.floor(low / 0x100000000) + ((lo << 8) >>> 0)) >>> 0;
    lo = low >>> 0;
  }
  return hi.toString(16).padStart(8, "0") + lo.toString(16).padStart(8, "0");
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * Fingerprint of the alert a chain has for one state. Deliberately independent of the reason and
 * of whether the state was the headline or `shadowed`: an effect_unknown that first shows up behind
 * needs_auth and later becomes the headline is the same incident for the receiver.
 */
export function alertFingerprint(chainId: string, state: string): string {
  // NUL cannot occur in an Id, so the two parts cannot run into each other.
  return fnv1a64(`${chainId}\u0000${state}`);
}
