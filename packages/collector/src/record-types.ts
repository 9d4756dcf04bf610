/**
 * The health record v1 shapes the collector writes (contract §1), spelled out here so the
 * collector type-checks what it builds. Ingestion validates with the contract module's strict
 * zod schema; the collector's tests validate every record they produce with it too.
 */
export type Timestamp = string;
export type Version = string;
export type Verifier = "file_hash" | "db_row" | "http_status" | "test" | "llm_judge" | "other";
export type SideEffect = "none" | "write" | "unknown";
export type TransportKind = "stdio" | "streamable-http" | "sse" | "other";
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";
export type ErrorEvidence = { code: number; class: string };

export type AuthChallenge = {
  status: 401 | 403;
  at: Timestamp;
  error?: string;
  requiredScope?: string;
  resourceMetadataUrl?: string;
  resource?: string;
};

export type SessionEvidence = {
  id: string;
  client: { name: string; version: string };
  server?: { name: string; version: string };
  transport: TransportKind;
  auth?: { challenge?: AuthChallenge; resolvedAt?: Timestamp };
  protocol: {
    era: "legacy" | "modern";
    requestedVersion: Version;
    acceptedVersion?: Version;
    clientSupportedVersions: Version[];
    serverSupportedVersions?: Version[];
    initializedAt?: Timestamp;
  };
  capabilities: {
    server: string[];
    client: string[];
    required: { server: string[]; client: string[] };
  };
};

export type CatalogEvidence = {
  pages: number;
  complete: boolean;
  toolCount: number;
  schemaHash: string;
  refreshedAt: Timestamp;
  ttlMs?: number;
  listChangedAt: Timestamp[];
};

export type ProgressEntry = { at: Timestamp; token: string | number; progress: number; total?: number };

export type CallEvidence = {
  requestId: string | number;
  tool: string;
  inCatalog?: boolean;
  sideEffect: SideEffect;
  operationKey?: string;
  expectedVerifier?: Verifier;
  startedAt: Timestamp;
  deadlineMs: number;
  inactivityMs: number;
  progressToken?: string | number;
  progress: ProgressEntry[];
  cancelledAt?: Timestamp;
  response?: {
    at: Timestamp;
    kind: "result" | "error";
    error?: ErrorEvidence;
    isError?: boolean;
    resultType?: "complete" | "input_required" | "task";
  };
  task?: {
    id: string;
    status: TaskStatus;
    updatedAt: Timestamp;
    polledAt?: Timestamp;
    result?: { isError: boolean };
    error?: ErrorEvidence;
  };
  effect?: { checkedAt: Timestamp; status: "committed" | "absent" | "unknown"; receipt?: string };
  outcome?: {
    checkedAt: Timestamp;
    verifier: Verifier;
    verdict: "pass" | "fail" | "unavailable";
    receipt?: string;
  };
};

export type CollectorRecord = {
  schemaVersion: 1;
  recordId: string;
  chainId: string;
  observedAt: Timestamp;
  labels?: Record<string, string>;
  session: SessionEvidence;
  catalog?: CatalogEvidence;
  call?: CallEvidence;
  /** Contract v1.2: the layers the collector did not see (a client wrapped after it connected). */
  observed?: { handshake?: boolean; catalog?: boolean };
};
