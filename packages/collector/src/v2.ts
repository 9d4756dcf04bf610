/**
 * Entry `@receipt/collector/v2`: everything the main entry exports, with `createCollector` typed by SDK 2.x
 * (`@modelcontextprotocol/client`): `connectV2` gives the SDK's `Client`, `streamableHttpV2` its transport, and
 * `clientOptions` are the SDK's `ClientOptions`. Only SDK 2.x needs to be installed to type-check an import of
 * this entry. The functions are the main entry's.
 */
import type {
  ClientCapabilities,
  ClientOptions,
  Client,
  StreamableHTTPClientTransport,
  StreamableHTTPClientTransportOptions,
  Transport,
} from "@modelcontextprotocol/client";
import {
  type Collector,
  type CollectorOptions,
  type ConnectV2Options,
  createCollector as createAnyCollector,
} from "./index.js";

export * from "./index.js";

export type CollectorV2Options = Omit<CollectorOptions, "capabilities"> & {
  capabilities?: ClientCapabilities;
};

export type ConnectV2ClientOptions = Omit<ConnectV2Options, "clientOptions"> & {
  /** Options of the 2.x client the collector builds (its `capabilities` come from the collector's options). */
  clientOptions?: Omit<ClientOptions, "capabilities">;
};

export type CollectorV2 = Omit<Collector, "connectV2" | "streamableHttpV2"> & {
  /** An SDK 2.x Streamable HTTP transport whose 401/403 challenges are recorded (never the token). */
  streamableHttpV2(
    url: string | URL,
    transportOptions?: StreamableHTTPClientTransportOptions,
  ): StreamableHTTPClientTransport;
  /** Connects an SDK 2.x client: legacy, modern (2026-07-28) or either, as `clientOptions` says. */
  connectV2(transport: Transport, connect?: ConnectV2ClientOptions): Promise<Client>;
};

export const createCollector: (options: CollectorV2Options) => CollectorV2 =
  createAnyCollector as unknown as (options: CollectorV2Options) => CollectorV2;
