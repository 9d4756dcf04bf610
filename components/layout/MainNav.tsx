"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import type { Role } from "@/lib/auth/roles";
import { useCurrentUser } from "../auth/CurrentUser";
import { roleAtLeast } from "@/lib/auth/roles";
import styles from "./AppHeader.module.css";

/** `needs`: the least role that sees the entry (the page itself tells a lower role what it may not do). */
const sections: { href: string; label: string; needs?: Role }[] = [
  { href: "/", label: "Overview" },
  { href: "/chains", label: "Chains" },
  { href: "/problems", label: "Problems" },
  { href: "/queues/false-success", label: "False success" },
  { href: "/queues/effect-unknown", label: "Effect unknown" },
  { href: "/alerts", label: "Alerts" },
  { href: "/silences", label: "Silences" },
  { href: "/coverage", label: "Coverage" },
  { href: "/routing", label: "Routing" },
  { href: "/audit", label: "Audit log", needs: "admin" },
  { href: "/settings/keys", label: "Settings", needs: "admin" },
  { href: "/account", label: "Account" },
];

function isCurrent(pathname: string, href: string): boolean {
  if (href === "/") return pathname === "/";
  if (href === "/chains") return pathname.startsWith("/chains") || pathname.startsWith("/sessions");
  if (href.startsWith("/settings")) return pathname.startsWith("/settings");
  return pathname.startsWith(href);
}

export function MainNav() {
  const pathname = usePathname() ?? "/";
  const role = useCurrentUser()?.role ?? "viewer";
  return (
    <nav aria-label="Main" className={styles.nav}>
      {sections
        .filter((section) => !section.needs || roleAtLeast(role, section.needs))
        .map((section) => (
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
