/**
 * What a process that ends without `flush()` or `close()` would lose: when its event loop runs dry (`beforeExit`),
 * every live sink with records still buffered gets one flush, within its flush timeout; at `exit`, a sink still
 * holding records says so once on stderr. One listener of each kind for the process, however many sinks: a sink
 * joins when it is given records and leaves when it is closed. `process.exit()` skips `beforeExit`: only the warning
 * runs then.
 */
export type ExitFlushing = {
  /** Records buffered and not yet delivered. */
  readonly pending: number;
  /** One last flush at exit; resolves whatever happened (the warning reports what is left). */
  flushAtExit(): Promise<void>;
  /** The line to print at exit when records are left, or undefined. */
  exitWarning(): string | undefined;
};

const sinks = new Set<ExitFlushing>();
const flushedAtExit = new WeakSet<ExitFlushing>();
let listening = false;

export function flushOnExit(sink: ExitFlushing): void {
  sinks.add(sink);
  if (listening || typeof process === "undefined" || typeof process.on !== "function") return;
  listening = true;
  process.on("beforeExit", onBeforeExit);
  process.on("exit", onExit);
}

export function stopFlushingOnExit(sink: ExitFlushing): void {
  sinks.delete(sink);
}

function onBeforeExit(): void {
  // Once per sink: a Receipt that stays down must not keep the process alive, flush after flush.
  for (const sink of sinks) {
    if (sink.pending === 0 || flushedAtExit.has(sink)) continue;
    flushedAtExit.add(sink);
    void sink.flushAtExit();
  }
}

function onExit(): void {
  for (const sink of sinks) {
    const warning = sink.exitWarning();
    // stderr is synchronous for files, pipes and terminals on Linux: the line is out before the process is gone.
    if (warning) process.stderr.write(`${warning}\n`);
  }
}
