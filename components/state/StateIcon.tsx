import type { StateIconName } from "@/lib/dashboard/state-meta";

// Simple stroked glyphs, one per state: the shape alone tells the states apart, with or without colour.
const PATHS: Record<StateIconName, React.ReactNode> = {
  lock: (
    <>
      <rect x="3.5" y="7" width="9" height="7" rx="1.2" />
      <path d="M5.5 7V5a2.5 2.5 0 0 1 5 0v2" />
    </>
  ),
  plug: <path d="M6 1.5v3.5M10 1.5v3.5M4 5h8v3a4 4 0 0 1-8 0zM8 12v3" />,
  refresh: <path d="M13 8a5 5 0 1 1-1.6-3.7M13.2 1.8v3h-3" />,
  brackets: <path d="M5.5 2.5h-2v11h2M10.5 2.5h2v11h-2M9 5l-2 6" />,
  cross: (
    <>
      <circle cx="8" cy="8" r="6" />
      <path d="M5.8 5.8l4.4 4.4M10.2 5.8l-4.4 4.4" />
    </>
  ),
  dots: (
    <>
      <circle cx="3.5" cy="8" r="1.2" />
      <circle cx="8" cy="8" r="1.2" />
      <circle cx="12.5" cy="8" r="1.2" />
    </>
  ),
  question: (
    <>
      <circle cx="8" cy="8" r="6" />
      <path d="M6.3 6.2a1.8 1.8 0 1 1 2.6 1.6c-.6.3-.9.7-.9 1.3v.4M8 11.4v.2" />
    </>
  ),
  warning: <path d="M8 1.8l6.4 11.4H1.6zM8 6v3.6M8 11.3v.2" />,
  dashed: <circle cx="8" cy="8" r="6" strokeDasharray="2.4 2" />,
  check: (
    <>
      <circle cx="8" cy="8" r="6" />
      <path d="M5.2 8.2l2 2 3.6-4" />
    </>
  ),
};

export function StateIcon({ name, size = 16 }: { name: StateIconName; size?: number }) {
  return (
    <svg
      width={size}
      height={size}
      viewBox="0 0 16 16"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.6"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      {PATHS[name]}
    </svg>
  );
}
