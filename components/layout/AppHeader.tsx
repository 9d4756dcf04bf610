import Link from "next/link";

const sections = [
  { href: "/", label: "Overview" },
  { href: "/chains", label: "Chains" },
  { href: "/queues/false-success", label: "False success" },
  { href: "/queues/effect-unknown", label: "Effect unknown" },
  { href: "/coverage", label: "Coverage" },
  { href: "/routing", label: "Routing" },
  { href: "/settings/keys", label: "Settings" },
];

export function AppHeader() {
  return (
    <header className="app-header">
      <Link href="/" className="brand">
        Receipt<small>no green without a receipt</small>
      </Link>
      <nav aria-label="Main">
        {sections.map((section) => (
          <Link key={section.href} href={section.href}>
            {section.label}
          </Link>
        ))}
      </nav>
    </header>
  );
}
