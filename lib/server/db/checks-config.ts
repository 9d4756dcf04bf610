import type { Prisma } from "@/lib/generated/prisma/client";
import { getPrisma } from "./client";

type Tx = Prisma.TransactionClient;

export type ChecksVersionRow = {
  id: bigint;
  config: unknown;
  createdAt: Date;
  createdBy: string;
  comment: string | null;
};

/** The newest checks config version (the current one), or null when none was ever saved. */
export async function readNewestChecksVersion(): Promise<ChecksVersionRow | null> {
  return getPrisma().checkConfigVersion.findFirst({ orderBy: { id: "desc" } });
}

/** Serialises saves: two saves cannot both follow the same base version. */
export async function lockChecksVersions(tx: Tx): Promise<void> {
  await tx.$executeRaw`select pg_advisory_xact_lock(hashtextextended('receipt:checks-config', 0))`;
}

export async function newestChecksVersionId(tx: Tx): Promise<bigint | null> {
  const row = await tx.checkConfigVersion.findFirst({ orderBy: { id: "desc" }, select: { id: true } });
  return row?.id ?? null;
}

export async function insertChecksVersion(
  tx: Tx,
  input: { config: Prisma.InputJsonValue; createdBy: string; comment: string | null },
): Promise<bigint> {
  const row = await tx.checkConfigVersion.create({ data: input, select: { id: true } });
  return row.id;
}
