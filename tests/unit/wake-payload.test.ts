import { describe, expect, it } from "vitest";
import { isOwnWake, wakePayload } from "@/lib/server/db/wake-notify";
import type { Sql, TransactionSql } from "@/lib/server/db/sql";

// The NOTIFY payload of a wake-up: this instance's id when the instance is also woken directly after the commit (a
// transaction with afterCommit), so its listener can let the echo pass; empty otherwise, so the listener wakes it.
const noRows = async () => [] as never[];
const plain: Sql = { query: noRows, execute: async () => 0 };
const transaction = { ...plain, copyIn: async () => 0, afterCommit: () => {} } as TransactionSql;

describe("wake-up payloads", () => {
  it("a transaction that wakes this instance itself names it; the instance knows its own and no other", () => {
    const own = wakePayload(transaction);
    expect(own).toMatch(/^receipt-[0-9a-f-]{36}$/);
    expect(wakePayload(transaction)).toBe(own);
    expect(isOwnWake(own)).toBe(true);
    expect(isOwnWake("receipt-00000000-0000-0000-0000-000000000000")).toBe(false);
  });

  it("a statement outside such a transaction (Prisma's, an autocommit) sends none: every listener wakes", () => {
    expect(wakePayload(plain)).toBe("");
    expect(isOwnWake("")).toBe(false);
    expect(isOwnWake(undefined)).toBe(false);
  });
});
