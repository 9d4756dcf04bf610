/**
 * Entry `@receipt/collector/v1`: everything the main entry exports, with `createCollector` typed by SDK 1.x
 * (`@modelcontextprotocol/sdk`): `connect` gives the SDK's `Client`, `streamableHttp` its transport. Only SDK 1.x
 * needs to be installed to type-check an import of this entry. The functions are the main entry's.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type {
  StreamableHTTPClientTransport,
  StreamableHTTPClientTransportOptions,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import {
  type Collector,
  type CollectorOptions,
  type ConnectOptions,
  createCollector as createAnyCollector,
  type V1ClientLike,
} from "./index.js";

export * from "./index.js";

export type CollectorV1Options = Omit<CollectorOptions, "capabilities"> & {
  capabilities?: ClientCapabilities;
};

export type CollectorV1 = Omit<Collector, "connect" | "streamableHttp"> & {
  /** An SDK 1.x Streamable HTTP transport whose 401/403 challenges are recorded (never the token). */
  streamableHttp(
    url: string | URL,
    transportOptions?: StreamableHTTPClientTransportOptions,
  ): StreamableHTTPClientTransport;
  /** Connects an SDK 1.x client (initialize); a session that fails is recorded and thrown as `SessionFailedError`. */
  connect<C extends V1ClientLike = Client>(transport: Transport, connect?: ConnectOptions<C>): Promise<C>;
};

export const createCollector: (options: CollectorV1Options) => CollectorV1 = createAnyCollector as (
  options: CollectorV1Options,
) => CollectorV1;
