// Group commit, done where the guard's decisions are made: the decisions that arrive while one group is being written
// go together in the next, one statement and one commit a group instead of one each; the first after a quiet spell is
// written at once, alone. Each caller's promise settles once its group is committed, so an answer never names a
// decision that is not stored.

type Waiting<E, R> = { entry: E; resolve: (result: R) => void; reject: (error: unknown) => void };

/** At most this many decisions in one statement (each a row of arrays of parameters). */
const GROUP_LIMIT = 256;

/**
 * A writer of groups: `write` stores a group and answers one result an entry, in order. With `keyOf`, two entries of
 * one key never share a group (a statement changes a row at most once): the later one waits for the next.
 */
export function groupWriter<E, R>(
  write: (group: E[]) => Promise<R[]>,
  keyOf?: (entry: E) => string,
): (entry: E) => Promise<R> {
  let waiting: Waiting<E, R>[] = [];
  let writing = false;

  const nextGroup = () => {
    if (!keyOf) return waiting.splice(0, GROUP_LIMIT);
    const group: Waiting<E, R>[] = [];
    const later: Waiting<E, R>[] = [];
    const keys = new Set<string>();
    for (const item of waiting) {
      const key = keyOf(item.entry);
      if (group.length < GROUP_LIMIT && !keys.has(key)) {
        keys.add(key);
        group.push(item);
      } else later.push(item);
    }
    waiting = later;
    return group;
  };

  const writeWaiting = async () => {
    writing = true;
    try {
      while (waiting.length > 0) {
        const group = nextGroup();
        try {
          const results = await write(group.map(({ entry }) => entry));
          for (const [i, { resolve }] of group.entries()) resolve(results[i] as R);
        } catch (error) {
          for (const { reject } of group) reject(error);
        }
      }
    } finally {
      writing = false;
    }
  };

  return (entry) =>
    new Promise<R>((resolve, reject) => {
      waiting.push({ entry, resolve, reject });
      if (!writing) void writeWaiting();
    });
}
