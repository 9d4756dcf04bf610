import Link from "next/link";
import { resourceOfPath } from "@/lib/dashboard/page-resource";
import { requestedPagePath } from "@/lib/server/auth/page-guard";

const MISSING = {
  chain: { title: "Chain not found", heading: "No chain with this id", link: "/chains", linkText: "Chains" },
  session: {
    title: "Session not found",
    heading: "No session with this id",
    link: "/chains",
    linkText: "Chains",
  },
};

// Any URL no page answers, and a chain or session id that does not exist (the (dashboard) layout's 404). Outside
// the dashboard layout, so it shows no data and needs no session. Styled by globals.css only: Next.js hints a root
// not-found page's own stylesheets on every page, and Chromium warns in the console about each hinted stylesheet
// the page then does not use.
export default async function NotFound() {
  const resource = resourceOfPath(await requestedPagePath());
  const missing = resource ? MISSING[resource.kind] : null;
  return (
    <>
      {/* The dashboard's way around, without its data: this page is outside its layout and needs no session. */}
      <header className="plain-header" data-testid="not-found-header">
        <Link href="/" className="plain-header-brand">
          Receipt
        </Link>
        <nav aria-label="Main">
          <Link href="/">Overview</Link>
          <Link href="/chains">Chains</Link>
          <Link href="/alerts">Alerts</Link>
          <Link href="/queues/false-success">False success</Link>
          <Link href="/queues/effect-unknown">Effect unknown</Link>
        </nav>
      </header>
      <main id="main">
        <div className="panel not-found" data-testid={missing ? `${resource?.kind}-not-found` : undefined}>
          {missing && <title>{`${missing.title} · Receipt`}</title>}
          <p className="not-found-icon" aria-hidden="true">
            ○
          </p>
          <h1>{missing?.heading ?? "No such page"}</h1>
          {missing && (
            <p>
              It was never recorded here, or the link is mistyped: search for it from the{" "}
              <Link href={missing.link}>{missing.linkText}</Link> page's header box.
            </p>
          )}
          <p>
            <Link href="/">Back to the overview</Link>
          </p>
        </div>
      </main>
    </>
  );
}
