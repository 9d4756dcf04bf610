import Link from "next/link";

// Inside the dashboard layout (header and search box stay); the response's status is 404.
export default function ChainNotFound() {
  return (
    <div className="panel not-found" data-testid="chain-not-found">
      <title>Chain not found · Receipt</title>
      <p className="not-found-icon" aria-hidden="true">
        ○
      </p>
      <h1>No chain with this id</h1>
      <p>
        It was never recorded here, or the link is mistyped. Try the search box above (<kbd>/</kbd>), or{" "}
        <Link href="/chains">browse the chains</Link>.
      </p>
    </div>
  );
}
