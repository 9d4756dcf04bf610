import Link from "next/link";
import { ROLE_LABELS } from "@/lib/auth/roles";
import type { CurrentUser } from "../auth/CurrentUser";
import { SignOutButton } from "../auth/SignOutButton";
import styles from "./AppHeader.module.css";
import { MainNav } from "./MainNav";
import { SearchBox } from "./SearchBox";

/** The dashboard's top bar: brand, sections, and who is signed in (with the way out). */
export function AppHeader({ user }: { user: CurrentUser }) {
  return (
    <header className={styles.header}>
      <div className={styles.top}>
        <Link href="/" className={styles.brand}>
          Receipt<small>no green without a receipt</small>
        </Link>
        <SearchBox />
        <div className={styles.user}>
          <span data-testid="signed-in-user">
            <span className="visually-hidden">Signed in as </span>
            <span className={styles.userIcon} aria-hidden="true" />
            {user.username}
          </span>
          <span className={styles.role} data-testid="signed-in-role">
            <span className="visually-hidden">, role </span>
            {ROLE_LABELS[user.role]}
          </span>
          <SignOutButton />
        </div>
      </div>
      <MainNav />
    </header>
  );
}
