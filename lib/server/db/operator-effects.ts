import type { Prisma } from "@/lib/generated/prisma/client";
import type { OperatorEffect } from "../ingest/operator-evidence";

/** The newest operator-recorded destination evidence of each chain that has any. */
export async function latestOperatorEffects(
  tx: Prisma.TransactionClient,
  chainIds: string[],
): Promise<Map<string, OperatorEffect>> {
  if (chainIds.length === 0) return new Map();
  const rows = await tx.operatorEffect.findMany({
    where: { chainId: { in: chainIds } },
    orderBy: [{ chainId: "asc" }, { checkedAt: "desc" }, { id: "desc" }],
    distinct: ["chainId"],
    select: { chainId: true, status: true, receipt: true, checkedAt: true },
  });
  return new Map(
    rows.map((row) => [
      row.chainId,
      { status: row.status as OperatorEffect["status"], receipt: row.receipt, checkedAt: row.checkedAt },
    ]),
  );
}
