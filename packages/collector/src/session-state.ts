/** What one connection's wire has shown of its session so far: written by the legacy and modern observers alike. */
export type SessionState = {
  era: "legacy" | "modern";
  requestedVersion: string;
  acceptedVersion?: string;
  serverSupportedVersions?: string[];
  server?: { name: string; version: string };
  serverCapabilities: string[];
  clientCapabilities: string[];
  initializedAt?: number;
  /** The server answered something (a result or an error) on this session's wire. */
  answered: boolean;
  /** A `server/discover` result crossed this session's wire. */
  discovered: boolean;
  /**
   * The server refused `server/discover` as a method it does not know (JSON-RPC -32601; over Streamable HTTP an HTTP
   * 4xx other than 401/403): a legacy server, which serves none of the modern versions.
   */
  discoverRefused?: boolean;
};
