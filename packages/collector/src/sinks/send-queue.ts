/** A record ready to send: serialised once, with its size. */
export type QueuedRecord = { recordId: string; json: string; bytes: number };

/**
 * The sink's buffer, bounded by records and by bytes. When a bound is passed the oldest records go first (the
 * newest say most about a chain's present state, and a chain's later phases repeat its earlier evidence); the
 * batch on the wire is never dropped under it.
 */
export class SendQueue {
  private entries: QueuedRecord[] = [];
  private totalBytes = 0;
  /** The head records posted right now. */
  inFlight = 0;

  constructor(
    private readonly maxRecords: number,
    private readonly maxBytes: number,
  ) {}

  get length(): number {
    return this.entries.length;
  }

  get bytes(): number {
    return this.totalBytes;
  }

  /** Adds at the tail; returns the records dropped to stay within the bounds. */
  push(entry: QueuedRecord): QueuedRecord[] {
    this.entries.push(entry);
    this.totalBytes += entry.bytes;
    return this.trim();
  }

  /** Puts records back at the head (to be sent next); returns what the bounds dropped. */
  unshift(entries: QueuedRecord[]): QueuedRecord[] {
    this.entries.unshift(...entries);
    for (const entry of entries) this.totalBytes += entry.bytes;
    return this.trim();
  }

  /** The next batch: up to `count` records and `maxBytes` bytes, at least one record. */
  head(count: number, maxBytes: number): QueuedRecord[] {
    let bytes = 0;
    let end = 0;
    while (end < this.entries.length && end < count) {
      const size = (this.entries[end] as QueuedRecord).bytes;
      if (end > 0 && bytes + size > maxBytes) break;
      bytes += size;
      end++;
    }
    return this.entries.slice(0, end);
  }

  removeHead(count: number): void {
    for (const entry of this.entries.splice(0, count)) this.totalBytes -= entry.bytes;
  }

  /** Every record id buffered, oldest first. */
  ids(limit: number): string[] {
    return this.entries.slice(0, limit).map((entry) => entry.recordId);
  }

  private trim(): QueuedRecord[] {
    const over = () => this.entries.length > this.maxRecords || this.totalBytes > this.maxBytes;
    if (!over()) return [];
    let cut = 0;
    let freedBytes = 0;
    const protectedHead = Math.min(this.inFlight, this.entries.length);
    while (protectedHead + cut < this.entries.length) {
      if (this.entries.length - cut <= this.maxRecords && this.totalBytes - freedBytes <= this.maxBytes)
        break;
      freedBytes += (this.entries[protectedHead + cut] as QueuedRecord).bytes;
      cut++;
    }
    const dropped = this.entries.splice(protectedHead, cut);
    this.totalBytes -= freedBytes;
    return dropped;
  }
}
