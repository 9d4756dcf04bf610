/**
 * The JSON the dashboard reads from /api/v1, as types both sides share. Client-safe: no server imports, so
 * components can type their queries and the server's response builders can be checked against the same shape.
 */
import type { HealthRecord } from "../contract/record";
import type { State } from "../contract/states";
import type { SessionCallTimes } from "./session-timeline";
import type { CountsChange } from "./window-comparison";

export type ChainSummary = {
  chainId: string;
  sessionId: string;
  state: State;
  layer: string;
  reasons: string[];
  retrySafe: boolean | null;
  evidence: string | null;
  shadowed: { state: State; reason: string } | null;
  nextCheckAt: string | null;
  observedAt: string;
  evaluatedAt: string;
  firstSeenAt: string;
  server: { name: string; version: string | null } | null;
  client: { name: string; version: string };
  transport: string;
  tool: string | null;
  labels: Record<string, string>;
  recordCount: number;
  currentRecordId: string;
};

export type ChainListItem = ChainSummary & { matchedBy: "state" | "shadowed" };

/** `capped`: more than `count` chains match (the count stops there). */
export type ChainTotal = { count: number; capped: boolean };
export type ChainPage = { chains: ChainListItem[]; nextCursor: string | null; total: ChainTotal };

export type RecordEntry = {
  recordId: string;
  observedAt: string;
  receivedAt: string;
  state: string;
  layer: string;
  reasons: string[];
  retrySafe: boolean | null;
  shadowed: { state: string; reason: string | null } | null;
  current: boolean;
  body: HealthRecord;
};

export type HistoryEntry = {
  fromState: string | null;
  toState: string;
  reason: string;
  at: string;
  recordId: string | null;
  cause: string;
};

/** POST /api/v1/records: one result per record, in input order. */
export type IngestAnswer = {
  results: {
    recordId: string;
    chainId: string;
    state: State;
    layer: string;
    reasons: string[];
    retrySafe: boolean | null;
    shadowed: { state: State; reason: string } | null;
    evidence: string | null;
    nextCheckAt: string | null;
    duplicate: boolean;
  }[];
};

export type ChainDetail = {
  chain: ChainSummary;
  /** Set when the deadline job could not re-classify the chain (docs/API.md, "Set-aside items"). */
  setAside: { reason: string; at: string } | null;
  records: RecordEntry[];
  history: HistoryEntry[];
};

export type SessionView = {
  sessionId: string;
  worstState: State | undefined;
  worstIncludingShadowed: State | undefined;
  chains: ChainSummary[];
  /** Each chain's call times, for the timeline (lib/dashboard/session-timeline.ts). */
  calls: SessionCallTimes[];
};

export type Stats = {
  since: string | null;
  total: number;
  states: Record<State, number>;
  shadowed: Record<State, number>;
  queues: { falseSuccess: number; effectUnknown: number };
  /**
   * The window before [since, now) of the same length and how each count moved against it
   * (lib/dashboard/window-comparison.ts); null without `since` or when the window is in the future.
   */
  previous: { from: string; to: string; total: number; change: CountsChange } | null;
};

export const TIME_WINDOWS = ["1h", "24h", "7d"] as const;
export type TimeWindow = (typeof TIME_WINDOWS)[number];

export type Trend = {
  window: TimeWindow;
  bucketMs: number;
  buckets: { start: string; counts: Partial<Record<State, number>> }[];
};

export const QUEUES = ["false_success", "effect_unknown"] as const;
export type QueueName = (typeof QUEUES)[number];

export const TRIAGE_STATUSES = ["open", "acknowledged", "resolved"] as const;
export type TriageStatus = (typeof TRIAGE_STATUSES)[number];

/** A team member as the assignee picker and the triage views show them. */
export type AssigneeView = { id: string; username: string; displayName: string | null };

export type TriageItemView = {
  queue: QueueName;
  status: TriageStatus;
  assignee: AssigneeView | null;
  /** Free text from before assignees were users that named nobody on the team ("was: x"). */
  formerOwner: string | null;
  acknowledgedAt: string | null;
  acknowledgedBy: string | null;
  resolvedAt: string | null;
  resolvedBy: string | null;
  updatedAt: string | null;
};

/** left_queue: the chain's item here is resolved and the chain is no longer in the queue's state (reconciled). */
export type QueueEntry = {
  chain: ChainSummary;
  matchedBy: "state" | "shadowed" | "left_queue";
  triage: TriageItemView;
};

export type QueuePage = {
  queue: QueueName;
  entries: QueueEntry[];
  nextCursor: string | null;
  counts: Record<TriageStatus, number>;
};

export const TRIAGE_ACTIONS = ["acknowledge", "assign", "unassign", "note", "resolve", "reopen"] as const;
export type TriageAction = (typeof TRIAGE_ACTIONS)[number];

export type TriageEventView = {
  id: string;
  chainId: string;
  queue: string | null;
  actor: string;
  action: string;
  note: string | null;
  data: Record<string, unknown> | null;
  at: string;
};

export type OperatorEffectView = {
  id: string;
  status: "committed" | "absent";
  receipt: string | null;
  checkedAt: string;
  actor: string;
  note: string | null;
  /** The deliverable's verdict, when a destination check asserting the outcome recorded one. */
  outcome: {
    verdict: "pass" | "fail";
    verifier: "http_status" | "db_row" | "other";
    receipt: string | null;
  } | null;
};

export type ChainTriage = {
  items: TriageItemView[];
  events: TriageEventView[];
  operatorEffects: OperatorEffectView[];
};

export type ReconcileResult = {
  chainId: string;
  fromState: State;
  toState: State;
  reasons: string[];
  retrySafe: boolean | null;
  shadowed: { state: State; reason: string } | null;
};

/** One destination check's run on a chain (GET/POST /api/v1/chains/{id}/checks). */
export type CheckRunView = {
  check: string;
  trigger: "on_demand" | "effect_unknown" | "unverified";
  effect: "committed" | "absent" | "unknown";
  outcome: "pass" | "fail" | null;
  /** What was seen, short and free of content: "HTTP 200", "1 row", "timeout after 5000 ms". */
  receipt: string;
  /** This run's result reconciled the chain (its effect had been unknown). */
  reconciled: boolean;
  at: string;
};

export type ChainChecksAnswer = { runs: CheckRunView[] };

export type ChecksConfigAnswer = { version: string; config: unknown };

/** withReceipt + pending + unavailable + noVerifier + notReached = calls. */
export type CoverageCounts = {
  calls: number;
  /** A verifier's verdict, pass or fail. */
  withReceipt: number;
  /** Of those, verdicts of an LLM judge. */
  weak: number;
  pending: number;
  unavailable: number;
  noVerifier: number;
  /** Failed, in doubt, in flight, or stopped at the session or catalog: no deliverable to verify (yet). */
  notReached: number;
  /** Contract v1.2: calls whose chain has a layer the reporter did not see (a coverage gap, never a failure). */
  notObserved: number;
  /** Of those, the handshake unseen (`session.not_observed`) and the tool list unseen (`catalog.not_observed`). */
  handshakeNotObserved: number;
  catalogNotObserved: number;
};

export type CoverageRow = CoverageCounts & {
  server: string | null;
  tool: string;
  /** The destination checks that read this tool's destination ("name (some labels)" when they match on labels). */
  checks: string[];
};

export type Coverage = {
  since: string | null;
  rows: CoverageRow[];
  totals: CoverageCounts;
  /** Spans and exports POST /v1/traces refused in the window, by code, most spans first. */
  otlpRefusals: { code: string; spans: number; exports: number }[];
};

export type Facets = { servers: string[]; clients: string[]; tools: string[]; labelKeys: string[] };

export type KeySummary = {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
};

export type CreatedKey = { key: string; summary: KeySummary };

export type ApiErrorBody = {
  error: { code: string; message: string; issues?: { path: string; code: string; message: string }[] };
};

/** What a header query found: `GET /api/v1/search?q=` (ids exact then by prefix, narrowed by tokens; bounded). */
export type SearchMatchKind = "chain_id" | "request_id" | "operation_key";
/** `exact`: the id is the word; `prefix`: the id starts with it. */
export type SearchMatch = "exact" | "prefix";
export type SearchResults = {
  query: string;
  /** Sessions whose id is, or starts with, a word, and how many of their chains pass the tokens (capped). */
  sessions: { sessionId: string; chains: number; moreChains: boolean; match: SearchMatch }[];
  /** Chains whose id, JSON-RPC request id or operation key is, or starts with, a word: exact matches first. */
  chains: (ChainSummary & { matchedBy: SearchMatchKind; match: SearchMatch })[];
  /** More chains or sessions matched than were returned. */
  more: boolean;
  /** The one page the query names, when it names exactly one (or the filtered chain list for tokens only). */
  target: string | null;
  /** The chain list filtered by the query's tokens, when it has any (`/chains?server=…`). */
  chainsPath: string | null;
};
