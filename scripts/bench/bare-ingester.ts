/**
 * The bare ingester: the least any Node ingester that checks what it stores can do on this machine. A bare node:http
 * server, in its own process, that reads a batch, parses it, validates and classifies every record with Receipt's own
 * `prepareRecords` (schema, secret guard, classifier), writes the ceiling's rows (scripts/bench/ceiling-writes.ts) in
 * one transaction and answers 200. No authentication, no framework, no alerts, no routing, no rollups, no idempotency.
 *
 * bench:ingest posts the same batches to it as to the app: the gap from the raw ceiling to this floor is what HTTP,
 * JSON and checking the records cost by themselves; the gap from it to the app is what Receipt adds.
 *
 * Run as `node --import tsx scripts/bench/bare-ingester.ts DATABASE_URL POOL_SIZE`; prints `{"port":N}` when it listens.
 */
import http from "node:http";
import pg from "pg";
import { prepareRecords } from "../../lib/server/ingest/prepare-records";
import { writeCeilingRows } from "./ceiling-writes";

const [databaseUrl, poolSize] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: databaseUrl, max: Number(poolSize ?? 3) });

async function ingest(body: string): Promise<{ status: number; answer: unknown }> {
  const parsed = JSON.parse(body) as { records?: unknown };
  if (!Array.isArray(parsed.records)) return { status: 400, answer: { code: "invalid_body" } };
  const prepared = await prepareRecords(parsed.records);
  const client = await pool.connect();
  try {
    await writeCeilingRows(client, prepared);
  } finally {
    client.release();
  }
  return { status: 200, answer: { stored: prepared.length } };
}

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    ingest(Buffer.concat(chunks).toString("utf8")).then(
      ({ status, answer }) =>
        response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(answer)),
      (error: unknown) =>
        response
          .writeHead(500, { "content-type": "application/json" })
          .end(JSON.stringify({ error: String(error) })),
    );
  });
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (address && typeof address === "object") console.log(JSON.stringify({ port: address.port }));
});
process.on("SIGTERM", () => {
  server.close();
  void pool.end().then(() => process.exit(0));
});
