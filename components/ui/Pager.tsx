"use client";

/** Cursor pagination: the API only walks forward, so "first page" resets and the browser's Back goes back. */
export function Pager({
  hasPrevious,
  nextCursor,
  onFirst,
  onNext,
  shown,
  busy,
}: {
  hasPrevious: boolean;
  nextCursor: string | null;
  onFirst: () => void;
  onNext: (cursor: string) => void;
  shown: number;
  busy?: boolean;
}) {
  return (
    <nav
      aria-label="Pages"
      style={{ display: "flex", gap: "0.5rem", alignItems: "center", marginTop: "0.75rem" }}
    >
      <button type="button" className="button small" onClick={onFirst} disabled={!hasPrevious}>
        ⇤ First page
      </button>
      <button
        type="button"
        className="button small"
        onClick={() => nextCursor && onNext(nextCursor)}
        disabled={!nextCursor || busy}
      >
        Next page →
      </button>
      <span className="muted" style={{ fontSize: "0.9rem" }}>
        {shown} shown{nextCursor ? ", more after these" : hasPrevious ? ", end of list" : ""}
      </span>
    </nav>
  );
}
