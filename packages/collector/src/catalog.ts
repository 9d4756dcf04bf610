import { catalogSchemaHash } from "../../../lib/contract/schema-hash";
import type { CatalogEvidence } from "./record-types";
import type { SessionClient, ToolListing, ToolsPage } from "./sdk/session-client";
import { iso } from "./time";
import type { WireTap } from "./wire-tap";

export type CatalogOptions = {
  /** Quiet period after a `list_changed` before re-reading: a burst of notifications is one refresh. */
  debounceMs?: number;
  /** Pages read at most per refresh; a server that never stops paginating leaves it incomplete. */
  maxPages?: number;
  /** Follow-up refreshes at most when notifications keep arriving during re-discovery. */
  maxFollowUps?: number;
};
type Snapshot = Omit<CatalogEvidence, "listChangedAt"> & { names: Set<string>; taskRequired: Set<string> };

/**
 * The Catalog layer: paginated `tools/list` refreshes, page by page through the SDK client, and one
 * bounded, debounced re-discovery per burst of `list_changed`.
 */
export class CatalogTracker {
  private last?: Snapshot;
  private readonly listChangedAt: number[] = [];
  private inflight?: Promise<Snapshot>;
  private rediscovery?: Promise<void>;
  private dirty = false;
  /** Number of refreshes finished, the initial read included. */
  refreshes = 0;

  constructor(
    private readonly client: SessionClient,
    tap: WireTap,
    private readonly options: CatalogOptions = {},
  ) {
    tap.onNotification((method, _params, at) => {
      if (method !== "notifications/tools/list_changed") return;
      this.listChangedAt.push(at);
      // Only notifications after the last refresh matter to the classifier; keep the record small.
      if (this.listChangedAt.length > 100) this.listChangedAt.shift();
      this.scheduleRediscovery();
    });
  }

  async refresh(): Promise<CatalogEvidence> {
    while (this.inflight) await this.inflight.catch(() => undefined);
    this.inflight = this.readAllPages();
    try {
      this.last = await this.inflight;
      this.refreshes++;
    } finally {
      this.inflight = undefined;
    }
    return this.snapshot() as CatalogEvidence;
  }

  /** A re-discovery is running: the list is known to be stale. */
  get rediscovering(): boolean {
    return this.rediscovery !== undefined;
  }

  /** Waits (bounded) for a pending re-discovery, so a call is not chosen from a list known to be stale. */
  async settled(timeoutMs: number): Promise<void> {
    const pending = this.rediscovery;
    if (!pending) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([pending, timeout]);
    clearTimeout(timer);
  }

  snapshot(): CatalogEvidence | undefined {
    if (!this.last) return undefined;
    const { names: _names, taskRequired: _tasks, ...evidence } = this.last;
    return { ...evidence, listChangedAt: this.listChangedAt.map(iso) };
  }

  /** Was `tool` in the last catalog read? Undefined when the catalog was never read. */
  has(tool: string): boolean | undefined {
    return this.last ? this.last.names.has(tool) : undefined;
  }

  /** The modern cache hint ran out before `at` (ms): the list must be read again before a tool is chosen. */
  expired(at: number): boolean {
    const last = this.last;
    return last?.ttlMs !== undefined && at > Date.parse(last.refreshedAt) + last.ttlMs;
  }

  requiresTask(tool: string): boolean {
    return this.last?.taskRequired.has(tool) ?? false;
  }

  private scheduleRediscovery(): void {
    if (this.inflight) this.dirty = true;
    if (this.rediscovery) return;
    const debounceMs = this.options.debounceMs ?? 50;
    const maxFollowUps = this.options.maxFollowUps ?? 2;
    this.rediscovery = (async () => {
      await new Promise((resolve) => setTimeout(resolve, debounceMs));
      // A refresh already running may have read the list before the change: wait for it,
      // then read again once; follow up only while notifications keep arriving, bounded.
      for (let round = 0; round <= maxFollowUps; round++) {
        while (this.inflight) await this.inflight.catch(() => undefined);
        this.dirty = false;
        await this.refresh().catch(() => undefined);
        if (!this.dirty) break;
      }
    })().finally(() => {
      this.rediscovery = undefined;
    });
  }

  private async readAllPages(): Promise<Snapshot> {
    const maxPages = this.options.maxPages ?? 100;
    const tools: ToolListing[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    let complete = false;
    let ttlMs: number | undefined;
    while (pages < maxPages) {
      let page: ToolsPage;
      try {
        page = await this.client.listToolsPage(cursor);
      } catch (error) {
        // Nothing read at all is "catalog not read"; a failure mid-way is an incomplete read.
        if (pages === 0) throw error;
        break;
      }
      // The modern cache hint of the list is the first page's; 0 ("immediately stale") has no
      // place in the contract (ttlMs > 0), so only a positive hint is recorded.
      if (pages === 0 && Number.isInteger(page.ttlMs) && (page.ttlMs as number) > 0)
        ttlMs = page.ttlMs as number;
      pages++;
      tools.push(...page.tools);
      cursor = page.nextCursor;
      if (cursor === undefined) {
        complete = true;
        break;
      }
      if (seen.has(cursor)) break; // a cursor loop would never end
      seen.add(cursor);
    }
    const taskRequired = new Set(
      tools
        .filter(
          (tool) => (tool.execution as { taskSupport?: string } | undefined)?.taskSupport === "required",
        )
        .map((tool) => tool.name),
    );
    return {
      pages,
      complete,
      toolCount: tools.length,
      schemaHash: catalogSchemaHash(tools),
      refreshedAt: iso(Date.now()),
      ...(ttlMs === undefined ? {} : { ttlMs }),
      names: new Set(tools.map((tool) => tool.name)),
      taskRequired,
    };
  }
}
