export default function OverviewPage() {
  return (
    <section className="panel">
      <h1>Overview</h1>
      <p>
        Receipt classifies each MCP evidence chain — session, catalog, request, effect, outcome — into one
        health state. A JSON-RPC response is not proof that the job was done.
      </p>
    </section>
  );
}
