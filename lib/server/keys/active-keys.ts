import { KEY_CHANGES_CHANNEL, keyChangeNotificationsInstalled } from "../db/ingestion-key-changes";
import { type ActiveKey, findActiveKeyByHash } from "../db/ingestion-keys";
import { type NotificationListener, startNotificationListener } from "../db/notification-listener";
import { poolSql } from "../db/sql";
import { readEnv } from "../env";

// The active ingestion keys this app process has authenticated, by hash: a request with a key it holds costs no
// round trip to the database (for the retry guard, one statement in three). Held only while correct:
// - A trigger notifies every change that can refuse a key, by any path: the API, the CLI, plain SQL
//   (db/ingestion-key-changes.ts). The process forgets the key when the notification arrives, milliseconds
//   after the commit; the process that revoked it forgets it before answering (forgetActiveKeys).
// - Nothing is held while the LISTEN connection is not in place (starting, lost, reconnecting), nor where the
//   triggers are missing or disabled (a database the migrations did not run on): every request then reads the
//   database, as without this cache. A (re)connection forgets everything, since notifications sent while
//   it was away are lost.
// - A read that began before a change and ended after it is not kept (the generation moved on).
// - A key is held HOLD_MS at most, against a connection that died without a word.
// Outside the app's process (scripts, tests calling services), and with RECEIPT_WAKE_UPS=0, it is never started
// and every request reads.

const HOLD_MS = 30_000;

type Held = { key: ActiveKey; since: number };
type State = {
  listener: NotificationListener | null;
  listening: boolean;
  /** Moves on with every change heard and every (re)connection. */
  generation: number;
  /** Moves on with every connection made or lost. */
  connections: number;
  /** The missing triggers were logged. */
  warned?: boolean;
  byHash: Map<string, Held>;
};

// On globalThis: the app's fast lanes (scripts/app-server.ts) and Next.js's bundle each load their own copy of
// this module, and both must see one cache and one listener.
const shared = globalThis as unknown as { receiptActiveKeys?: State };
shared.receiptActiveKeys ??= {
  listener: null,
  listening: false,
  generation: 0,
  connections: 0,
  byHash: new Map(),
};
const state = shared.receiptActiveKeys;

/** Starts holding keys in this process, once: the app's server process does (instrumentation.ts). */
export function holdActiveKeys(): void {
  const { DATABASE_URL, RECEIPT_WAKE_UPS, RECEIPT_WAKE_RECONNECT_MAX_MS } = readEnv();
  // RECEIPT_WAKE_UPS=0 is for a database that cannot LISTEN (a pooler in transaction mode): no keys are held.
  if (state.listener || !DATABASE_URL || RECEIPT_WAKE_UPS !== "1") return;
  state.listener = startNotificationListener({
    connectionString: DATABASE_URL,
    name: "receipt-key-listener",
    what: "ingestion-key listener",
    meanwhile: "keys are read from the database on every request",
    channels: [KEY_CHANGES_CHANNEL],
    onNotification: (_channel, payload) => forgetActiveKeys(payload || undefined),
    onConnected: () => {
      forgetActiveKeys();
      const connection = ++state.connections;
      // Held only where every change is told: a database whose triggers are missing or disabled holds nothing.
      keyChangeNotificationsInstalled(poolSql())
        .then((installed) => {
          if (connection !== state.connections) return; // lost meanwhile: the next connection decides
          state.listening = installed;
          if (!installed && !state.warned) {
            state.warned = true;
            console.error(
              "receipt: the ingestion-key triggers are missing (run the migrations: npm run db:migrate); keys are read from the database on every request",
            );
          }
        })
        .catch(() => {});
    },
    onLost: () => {
      state.connections++;
      state.listening = false;
      forgetActiveKeys();
    },
    maxRetryMs: RECEIPT_WAKE_RECONNECT_MAX_MS,
  });
}

/** The active key with this hash, or null: from memory when held, else from the database (and then held). */
export async function findActiveKey(keyHash: string, now = Date.now()): Promise<ActiveKey | null> {
  const held = state.byHash.get(keyHash);
  if (held && state.listening && now - held.since < HOLD_MS) return held.key;
  const generation = state.generation;
  const found = await findActiveKeyByHash(keyHash);
  if (found && state.listening && generation === state.generation)
    state.byHash.set(keyHash, { key: found, since: now });
  return found;
}

/** Forgets the key with this id, or every key: on a change heard, and in the process that made it, after commit. */
export function forgetActiveKeys(id?: string): void {
  state.generation++;
  if (id === undefined) state.byHash.clear();
  else for (const [hash, held] of state.byHash) if (held.key.id === id) state.byHash.delete(hash);
}
