import { defineConfig } from "prisma/config";

// DATABASE_URL is only needed by Prisma's own CLI (migrate deploy on a networked machine);
// the app and the offline `npm run db:migrate` resolve the database themselves.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://localhost:5432/receipt" },
});
