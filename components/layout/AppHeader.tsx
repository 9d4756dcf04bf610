import Link from "next/link";
import { SignOutButton } from "../auth/SignOutButton";
import styles from "./AppHeader.module.css";
import { MainNav } from "./MainNav";
import { SearchBox } from "./SearchBox";

/** The dashboard's top bar: brand, sections, and who is signed in (with the way out). */
export function AppHeader({ username }: { username: string }) {
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
            {username}
          </span>
          <SignOutButton />
        </div>
      </div>
      <MainNav />
    </header>
  );
}
