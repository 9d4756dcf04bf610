import { clipText } from "./sinks/text-repair";

/** A peer's self-reported name and version, clipped to the contract's lengths (never inside a surrogate pair). */
export type PeerInfo = { name: string; version: string };

export function peerInfo(value: unknown): PeerInfo | undefined {
  if (!value || typeof value !== "object") return undefined;
  const info = value as { name?: unknown; version?: unknown };
  return clipPeer({
    name: typeof info.name === "string" && info.name ? info.name : "unknown",
    version: typeof info.version === "string" && info.version ? info.version : "unknown",
  });
}

export function clipPeer(info: PeerInfo): PeerInfo {
  return { name: clipText(info.name, 128), version: clipText(info.version, 64) };
}
