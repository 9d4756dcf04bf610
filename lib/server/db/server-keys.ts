import { getPrisma } from "./client";

/**
 * The server key named `name`, made from `candidate` when there is none yet. Every instance ends up with the same
 * key: when two make one at once, one insert wins and both read it.
 */
export async function findOrCreateServerKey(name: string, candidate: Buffer): Promise<Buffer> {
  const prisma = getPrisma();
  const found = await prisma.serverKey.findUnique({ where: { name } });
  if (found) return Buffer.from(found.key);
  await prisma.serverKey.createMany({
    data: [{ name, key: new Uint8Array(candidate) }],
    skipDuplicates: true,
  });
  // A statement of its own, so it sees the row a concurrent insert committed.
  const stored = await prisma.serverKey.findUniqueOrThrow({ where: { name } });
  return Buffer.from(stored.key);
}
