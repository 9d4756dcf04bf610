// A tiny, dependency-free, client-safe hash for alert fingerprints. FNV-1a 64-bit is not
// cryptographic; it only needs to be stable and well-spread so receivers can deduplicate.

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK_64 = 0xffffffffffffffffn;

/** FNV-1a 64 over the UTF-8 bytes of `text`, as 16 lowercase hex digits. */
export function fnv1a64(text: string): string {
  let hash = FNV_OFFSET;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= BigInt(byte);
    hash = (hash * FNV_PRIME) & MASK_64;
  }
  return hash.toString(16).padStart(16, "0");
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
