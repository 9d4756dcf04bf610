// `prisma generate` needs no schema engine (it uses WebAssembly), but Prisma's CLI tries to download one unless
// PRISMA_SCHEMA_ENGINE_BINARY names an existing file. Point it at this script; it is never executed.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

execFileSync("npx", ["prisma", "generate"], {
  stdio: ["ignore", "ignore", "inherit"],
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? fileURLToPath(import.meta.url),
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
    CHECKPOINT_DISABLE: "1",
  },
});
