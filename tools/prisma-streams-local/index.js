// `prisma dev` (Prisma's local Postgres with durable streams) is the only caller; Receipt runs its own embedded
// PostgreSQL (lib/server/db/embedded.ts) and never starts `prisma dev`.
export async function startLocalDurableStreamsServer() {
  throw new Error(
    "`prisma dev` is not available in Receipt: @prisma/streams-local (Node 22+) is replaced by tools/prisma-streams-local",
  );
}
