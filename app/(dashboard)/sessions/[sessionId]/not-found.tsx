import Link from "next/link";

// Inside the dashboard layout (header and search box stay); the response's status is 404.
export default function SessionNotFound() {
  return (
    <div className="panel not-found" data-testid="session-not-found">
      <title>Session not found · Receipt</title>
      <p className="not-found-icon" aria-hidden="true">
        ○
      </p>
      <h1>No session with this id</h1>
      <p>
        No chain of this session was recorded here. Try the search box above (<kbd>/</kbd>), or{" "}
        <Link href="/chains">browse the chains</Link>.
      </p>
    </div>
  );
}
