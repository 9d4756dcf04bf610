// The app's process in production (`npm start`, the tests, the benches): Next.js's own request handler, with in front
// of it the fast lanes, the few routes an agent calls on its hot path, served straight from Node's HTTP server.
//
// Why: Next.js's router costs about 1.5-2.5 ms of CPU for any request on this machine (route matching, its
// AsyncLocalStorage contexts, the Web Request it builds), so no route under it answers more than ~450-650 requests/s
// here (`GET /api/health`, the cheapest, in docs/BENCHMARKS.md). The retry guard is asked before every write an
// agent makes and must answer at least 1,000 times a second (issue 40); ingestion (native and OTLP) paid the router and
// its Web streams once a batch, a third of the app's CPU at batch 100 (issue 42). A fast lane runs the very handler the route
// file exports (same authentication, validation, errors and headers); only the router in between is skipped.
//
// Built by `npm run build` into .next/receipt/app-server.mjs (esbuild; packages stay external) and started by
// spawnNext (lib/server/next-server.ts) with the options of `next start`: --port, --hostname, --keepAliveTimeout.
import http from "node:http";
import { parseArgs } from "node:util";
import next from "next";
import { POST as guardAttempt } from "@/app/api/v1/operations/[key]/attempts/route";
import { POST as ingestRecords } from "@/app/api/v1/records/route";
import { POST as exportTraces } from "@/app/v1/traces/route";
import { bodyIncomplete } from "@/lib/server/http/api-error";
import { serveWebRoute, type WebRouteHandler } from "@/lib/server/http/node-web-handler";
import { SMALL_BODY_BYTES } from "@/lib/server/http/read-json";
import { MAX_BATCH_BYTES } from "@/lib/server/ingest/read-batch";
import { MAX_EXPORT_BYTES } from "@/lib/server/otlp/read-export";

type FastLane = {
  method: string;
  path: RegExp;
  params: string[];
  handler: WebRouteHandler;
  maxBytes: number;
};

/** Routes served without the router: path segments are decoded as Next.js decodes them into route parameters. */
const FAST_LANES: FastLane[] = [
  {
    method: "POST",
    path: /^\/api\/v1\/operations\/([^/?]+)\/attempts(?:\?.*)?$/,
    params: ["key"],
    handler: guardAttempt,
    maxBytes: SMALL_BODY_BYTES,
  },
  // Ingestion: the router's cost is paid per request, so it weighs most on the small batches agents send as they go.
  {
    method: "POST",
    path: /^\/api\/v1\/records(?:\?.*)?$/,
    params: [],
    handler: ingestRecords,
    maxBytes: MAX_BATCH_BYTES,
  },
  {
    method: "POST",
    path: /^\/v1\/traces(?:\?.*)?$/,
    params: [],
    handler: exportTraces,
    maxBytes: MAX_EXPORT_BYTES,
  },
];

function fastLaneFor(
  request: http.IncomingMessage,
): { lane: FastLane; params: Record<string, string> } | null {
  for (const lane of FAST_LANES) {
    if (request.method !== lane.method) continue;
    const match = lane.path.exec(request.url ?? "");
    if (!match) continue;
    const params: Record<string, string> = {};
    for (const [i, name] of lane.params.entries()) {
      try {
        params[name] = decodeURIComponent(match[i + 1] as string);
      } catch {
        return null; // not percent-encoded UTF-8: Next.js's proxy answers it (lib/server/http/malformed-path.ts)
      }
    }
    return { lane, params };
  }
  return null;
}

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    port: { type: "string", default: "3000" },
    hostname: { type: "string", default: "0.0.0.0" },
    keepAliveTimeout: { type: "string" },
  },
  allowPositionals: true,
});
const port = Number(values.port);
const hostname = values.hostname as string;
// As `next start` does: the app reads its own port from PORT (the outbound guard refuses sends to this app's address),
// Next.js its origin from __NEXT_PRIVATE_ORIGIN.
process.env.PORT = String(port);
process.env.__NEXT_PRIVATE_ORIGIN = `http://${hostname === "0.0.0.0" ? "localhost" : hostname}:${port}`;
process.env.NEXT_RUNTIME = "nodejs";
// The launcher and its tests know the app's process by the title `next start` gives it.
process.title = "next-server (receipt)";

const app = next({ dev: false, dir: process.cwd(), hostname, port });
const handle = app.getRequestHandler();
await app.prepare();

const server = http.createServer((request, response) => {
  const found = fastLaneFor(request);
  if (!found) {
    void handle(request, response);
    return;
  }
  serveWebRoute(request, response, found.lane.handler, found.params, found.lane.maxBytes).catch(
    (error: unknown) => {
      // The handler answers every error it can name; what is left is a client gone mid-body.
      if (response.headersSent || response.destroyed) response.destroy();
      else {
        console.error(`receipt: fast lane ${request.method} ${request.url}: ${String(error)}`);
        void bodyIncomplete()
          .toResponse()
          .text()
          .then((body) => response.writeHead(400, { "content-type": "application/json" }).end(body));
      }
    },
  );
});
if (values.keepAliveTimeout) server.keepAliveTimeout = Number(values.keepAliveTimeout);
// Next.js logs an uncaught exception and carries on: a server that cannot listen would keep running its workers on
// the database with no port to answer on. It exits instead, so whoever started it sees the port was taken.
const cannotListen = (error: Error) => {
  console.error(`receipt: cannot listen on http://${hostname}:${port}: ${error.message}`);
  process.exit(1);
};
server.once("error", cannotListen);
server.listen(port, hostname, () => {
  server.off("error", cannotListen);
  console.log(`▲ Next.js (receipt app server) on http://${hostname}:${port}`);
});

// As `next start`: stop taking connections, let open requests finish, close Next.js, exit 128 + the signal.
let stopping = false;
for (const [signal, code] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    server.close(() => {
      app
        .close()
        .catch((error: unknown) => console.error(error))
        .finally(() => process.exit(code));
    });
  });
}
