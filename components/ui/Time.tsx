"use client";

import { formatAbsolute, formatRelative } from "@/lib/dashboard/format";

/** A time shown relative ("3 min ago") with the absolute UTC time on hover and for assistive tech. */
export function Time({ iso, absolute = false }: { iso: string | null | undefined; absolute?: boolean }) {
  if (!iso) return <span className="muted">–</span>;
  const exact = formatAbsolute(iso);
  return (
    <time dateTime={iso} title={exact}>
      {absolute ? exact : formatRelative(iso, Date.now())}
    </time>
  );
}
