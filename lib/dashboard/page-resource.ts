/** The chain or session a dashboard path names (`/chains/<id>`, `/sessions/<id>`), or null for any other page. */
export function resourceOfPath(path: string): { kind: "chain" | "session"; id: string } | null {
  const match = /^\/(chains|sessions)\/([^/?#]+)\/?(?:[?#].*)?$/.exec(path);
  if (!match) return null;
  let id: string;
  try {
    id = decodeURIComponent(match[2] as string);
  } catch {
    return null; // the page itself answers a path it cannot decode
  }
  return { kind: match[1] === "chains" ? "chain" : "session", id };
}
