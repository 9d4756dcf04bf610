import Link from "next/link";

// Any URL no page answers. Outside the dashboard layout, so it shows no data and needs no session. Styled by
// globals.css only: Next.js hints a root not-found page's own stylesheets on every page, and Chromium warns in the
// console about each hinted stylesheet the page then does not use.
export default function NotFound() {
  return (
    <main id="main">
      <div className="panel not-found">
        <p className="not-found-icon" aria-hidden="true">
          ○
        </p>
        <h1>No such page</h1>
        <p>
          <Link href="/">Back to the overview</Link>
        </p>
      </div>
    </main>
  );
}
