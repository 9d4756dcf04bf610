"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import styles from "./AppHeader.module.css";

const sections = [
  { href: "/", label: "Overview" },
  { href: "/chains", label: "Chains" },
  { href: "/problems", label: "Problems" },
  { href: "/queues/false-success", label: "False success" },
  { href: "/queues/effect-unknown", label: "Effect unknown" },
  { href: "/alerts", label: "Alerts" },
  { href: "/coverage", label: "Coverage" },
  { href: "/routing", label: "Routing" },
  { href: "/settings/keys", label: "Settings" },
  { href: "/audit", label: "Audit log" },
];

function isCurrent(pathname: string, href: string): boolean {
  if (href === "/") return pathname === "/";
  if (href === "/chains") return pathname.startsWith("/chains") || pathname.startsWith("/sessions");
  if (href.startsWith("/settings")) return pathname.startsWith("/settings");
  return pathname.startsWith(href);
}

export function MainNav() {
  const pathname = usePathname() ?? "/";
  return (
    <nav aria-label="Main" className={styles.nav}>
      {sections.map((section) => (
        <Link
          key={section.href}
          href={section.href}
          aria-current={isCurrent(pathname, section.href) ? "page" : undefined}
        >
          {section.label}
        </Link>
      ))}
    </nav>
  );
}
