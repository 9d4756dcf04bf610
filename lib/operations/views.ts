import type { GuardDecision } from "./decision";
import type { AttemptEffect, LeaseState, OperationStatus } from "./status";

/** What `GET /api/v1/operations/{key}` answers, shared by the server and the dashboard's operation page. */
export type AttemptView = {
  chainId: string;
  state: string;
  reasons: string[];
  effect: AttemptEffect;
  at: string;
};
export type LeaseView = {
  holder: string;
  grantedAt: string;
  leaseUntil: string;
  state: LeaseState;
  /** What the destination showed once the lease expired with no record (an operator or `check:<name>`). */
  settled: { effect: "committed" | "absent"; receipt: string | null; by: string; at: string } | null;
};
export type DecisionView = {
  id: string;
  decision: GuardDecision;
  status: OperationStatus;
  holder: string;
  tool: string;
  server: string | null;
  leaseUntil: string | null;
  actor: string;
  at: string;
};

export type OperationView = {
  operationKey: string;
  status: OperationStatus;
  tool: string | null;
  server: string | null;
  attempts: AttemptView[];
  lease: LeaseView | null;
  /** The API address and the dashboard's page of the operation. */
  links: { self: string; page: string };
};

export type OperationDetail = OperationView & { decisions: DecisionView[] };
