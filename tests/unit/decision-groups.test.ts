import { describe, expect, it } from "vitest";
import { groupWriter } from "@/lib/server/operations/decision-groups";

type Entry = { key: string; n: number };

/** A writer whose every write waits until released, recording the groups it was given. */
function heldWriter(keyed: boolean) {
  const groups: number[][] = [];
  const releases: ((fail?: boolean) => void)[] = [];
  const write = groupWriter(
    (group: Entry[]) =>
      new Promise<string[]>((resolve, reject) => {
        groups.push(group.map((entry) => entry.n));
        releases.push((fail) =>
          fail ? reject(new Error("database down")) : resolve(group.map((e) => `ok ${e.n}`)),
        );
      }),
    keyed ? (entry) => entry.key : undefined,
  );
  const release = async (fail?: boolean) => {
    await new Promise((resolve) => setImmediate(resolve));
    releases.shift()?.(fail);
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { write, groups, release };
}

describe("decision groups (group commit)", () => {
  it("the first entry is written alone at once; those arriving meanwhile go together next, each with its result", async () => {
    const { write, groups, release } = heldWriter(false);
    const first = write({ key: "a", n: 1 });
    const later = [2, 3, 4].map((n) => write({ key: `k${n}`, n }));
    await release();
    await release();
    expect(groups).toEqual([[1], [2, 3, 4]]);
    expect(await first).toBe("ok 1");
    expect(await Promise.all(later)).toEqual(["ok 2", "ok 3", "ok 4"]);
  });

  it("with a key, two entries of one key never share a group, and each key keeps its order", async () => {
    const { write, groups, release } = heldWriter(true);
    const results = [
      write({ key: "a", n: 1 }),
      write({ key: "a", n: 2 }),
      write({ key: "b", n: 3 }),
      write({ key: "a", n: 4 }),
      write({ key: "b", n: 5 }),
    ];
    for (let i = 0; i < 4; i++) await release();
    expect(groups).toEqual([[1], [2, 3], [4, 5]]);
    expect(await Promise.all(results)).toEqual(["ok 1", "ok 2", "ok 3", "ok 4", "ok 5"]);
  });

  it("a failed write rejects its whole group and nothing else; the next group is still written", async () => {
    const { write, groups, release } = heldWriter(false);
    const first = write({ key: "a", n: 1 });
    const second = [write({ key: "b", n: 2 }), write({ key: "c", n: 3 })];
    const firstOutcome = first.catch((error: Error) => error.message);
    const secondOutcome = Promise.allSettled(second);
    await release(true);
    await release();
    expect(await firstOutcome).toBe("database down");
    expect((await secondOutcome).map((outcome) => outcome.status)).toEqual(["fulfilled", "fulfilled"]);
    const after = write({ key: "d", n: 4 });
    await release();
    expect(await after).toBe("ok 4");
    expect(groups).toEqual([[1], [2, 3], [4]]);
  });
});
