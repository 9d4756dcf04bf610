"use client";

import { useState } from "react";
import type { LeaseView } from "@/lib/operations/views";
import { useRoleAllows } from "../auth/CurrentUser";
import { RoleNote } from "../auth/RoleGate";
import { useCheckOperation, useSettleLease } from "../api/operations";

/**
 * A lease that expired with no record: the agent may have died after sending, so no chain exists to reconcile. Read
 * the destination (or let the destination checks read it) and say what it shows: committed (with what proves it)
 * makes every retry report the earlier write, absent lets the next attempt proceed.
 */
export function SettleLease({ operationKey, lease }: { operationKey: string; lease: LeaseView }) {
  const settle = useSettleLease(operationKey);
  const check = useCheckOperation(operationKey);
  const mayRespond = useRoleAllows("responder");
  const [receipt, setReceipt] = useState("");
  if (lease.settled) {
    return (
      <p data-testid="lease-settled">
        Settled by <span className="mono">{lease.settled.by}</span>: the destination shows the write{" "}
        <strong>{lease.settled.effect === "committed" ? "committed" : "absent"}</strong>
        {lease.settled.receipt ? (
          <>
            {" "}
            (<span className="mono">{lease.settled.receipt}</span>)
          </>
        ) : null}
        .
      </p>
    );
  }
  if (lease.state !== "expired") return null;
  const error = settle.error ?? check.error;
  return (
    <form
      aria-label="Settle the expired lease"
      onSubmit={(event) => {
        event.preventDefault();
        settle.mutate({ effect: "committed", receipt: receipt.trim() });
      }}
    >
      <RoleNote needs="responder" doing="settle an expired lease" />
      <p>
        The lease expired and no record arrived: the agent may have died after sending. What does the
        destination show?
      </p>
      <fieldset disabled={!mayRespond || settle.isPending || check.isPending}>
        <button type="button" onClick={() => check.mutate()}>
          Check destination now
        </button>{" "}
        <label>
          What proves it was written{" "}
          <input
            value={receipt}
            onChange={(event) => setReceipt(event.target.value)}
            maxLength={256}
            required
          />
        </label>{" "}
        <button type="submit">Committed</button>{" "}
        <button type="button" onClick={() => settle.mutate({ effect: "absent" })}>
          Not there (absent)
        </button>
      </fieldset>
      {error ? (
        <p role="alert" className="muted">
          {error.message}
        </p>
      ) : null}
    </form>
  );
}
