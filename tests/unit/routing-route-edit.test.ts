// Route tree edits by path (lib/routing/route-edit.ts): what the routing page does to a copy of the config before
// saving it as a new version. Inputs must stay untouched, ids and subroutes travel with their route.
import { describe, expect, it } from "vitest";
import type { TRouteConfig } from "@/lib/routing/config";
import { DEFAULT_ROUTING_CONFIG } from "@/lib/routing/defaults";
import {
  canMoveRoute,
  deleteRoute,
  editRoute,
  insertRoute,
  isMisplacedCatchAll,
  moveRoute,
  RoutePathError,
  routeAt,
  routeLabel,
  subrouteLabels,
} from "@/lib/routing/route-edit";
import { routeIds } from "@/lib/routing/route-id";
import { validateRoutingConfig } from "@/lib/routing/validate";

const tree = (): TRouteConfig => ({
  receiver: "ops",
  routes: [
    { id: "payments", name: "payments", matchers: ['label.team="payments"'], receiver: "pay" },
    {
      name: "tools",
      matchers: ['state="tool_failed"'],
      routes: [
        { name: "fs tools", matchers: ['server="fs"'] },
        {
          name: "db tools",
          matchers: ['server="db"'],
          routes: [{ name: "db writes", matchers: ['tool="w"'] }],
        },
      ],
    },
    { name: "rest", receiver: "ops" },
  ],
});

const names = (route: TRouteConfig | undefined) => (route?.routes ?? []).map((r) => r.name);

describe("routeAt", () => {
  it("walks child indexes from the root; a path that leads nowhere is undefined", () => {
    const root = tree();
    expect(routeAt(root, [])).toBe(root);
    expect(routeAt(root, [1, 1, 0])?.name).toBe("db writes");
    expect(routeAt(root, [1, 5])).toBeUndefined();
    expect(routeAt(root, [0, 0])).toBeUndefined();
  });
});

describe("editRoute", () => {
  it("replaces own options, keeps the subroutes and the explicit id, and leaves the input untouched", () => {
    const root = tree();
    const before = structuredClone(root);
    const edited = editRoute(root, [1], { name: "tool failures", matchers: ['state=~"tool_failed"'] });
    expect(root).toEqual(before);
    expect(routeAt(edited, [1])).toEqual({
      name: "tool failures",
      matchers: ['state=~"tool_failed"'],
      routes: before.routes?.[1]?.routes,
    });
    const renamed = editRoute(root, [0], { name: "pay", matchers: ['label.team="pay"'], receiver: "pay" });
    expect(routeAt(renamed, [0])).toMatchObject({ id: "payments", name: "pay" });
    // Siblings are the same objects: nothing else was rewritten.
    expect(renamed.routes?.[1]).toBe(root.routes?.[1]);
  });

  it("an option left undefined is removed (inherited again); `id: undefined` removes the explicit id", () => {
    const edited = editRoute(tree(), [0], { id: undefined, name: "payments", receiver: undefined });
    expect(routeAt(edited, [0])).toEqual({ name: "payments" });
  });

  it("edits the root in place of the whole tree, children kept", () => {
    const edited = editRoute(tree(), [], { receiver: "pay", groupWait: "10s" });
    expect(edited.receiver).toBe("pay");
    expect(names(edited)).toEqual(["payments", "tools", "rest"]);
  });

  it("refuses a path that leads nowhere", () => {
    expect(() => editRoute(tree(), [9], { name: "x" })).toThrow(RoutePathError);
  });
});

describe("moveRoute", () => {
  it("moves a route with its subroutes among its siblings only", () => {
    const root = tree();
    const down = moveRoute(root, [1], 1);
    expect(names(down)).toEqual(["payments", "rest", "tools"]);
    expect(routeAt(down, [2, 1, 0])?.name).toBe("db writes");
    const up = moveRoute(root, [1, 1], -1);
    expect(names(routeAt(up, [1]))).toEqual(["db tools", "fs tools"]);
    expect(names(root)).toEqual(["payments", "tools", "rest"]);
  });

  it("keeps every route's id: a derived id does not depend on its position among different siblings", () => {
    const root = tree();
    const idsByName = (r: TRouteConfig) => {
      const ids = routeIds(r);
      const byPath = new Map(ids.map(({ id, path }) => [path, id]));
      const out: Record<string, string | undefined> = {};
      const walk = (node: TRouteConfig, path: string) => {
        if (node.name) out[node.name] = byPath.get(path);
        for (const [i, child] of (node.routes ?? []).entries()) walk(child, `${path}.routes[${i}]`);
      };
      walk(r, "$.route");
      return out;
    };
    expect(idsByName(moveRoute(moveRoute(root, [0], 1), [0, 0], 1))).toEqual(idsByName(root));
  });

  it("the first cannot go up, the last cannot go down, the root cannot move", () => {
    const root = tree();
    expect(canMoveRoute(root, [0], -1)).toBe(false);
    expect(canMoveRoute(root, [0], 1)).toBe(true);
    expect(canMoveRoute(root, [2], 1)).toBe(false);
    expect(canMoveRoute(root, [], 1)).toBe(false);
    expect(canMoveRoute(root, [7], -1)).toBe(false);
    expect(() => moveRoute(root, [2], 1)).toThrow(RoutePathError);
  });
});

describe("deleteRoute", () => {
  it("removes the route and its subroutes; an emptied parent loses its routes list", () => {
    const root = tree();
    const without = deleteRoute(root, [1]);
    expect(names(without)).toEqual(["payments", "rest"]);
    const leaf = deleteRoute(root, [1, 1, 0]);
    expect(routeAt(leaf, [1, 1])).toEqual({ name: "db tools", matchers: ['server="db"'] });
    expect(names(root)).toEqual(["payments", "tools", "rest"]);
  });

  it("refuses the root and a path that leads nowhere", () => {
    expect(() => deleteRoute(tree(), [])).toThrow(RoutePathError);
    expect(() => deleteRoute(tree(), [3])).toThrow(RoutePathError);
  });
});

describe("insertRoute", () => {
  it("inserts at the chosen position under the chosen parent; past the end is last", () => {
    const root = tree();
    const route = { name: "new", matchers: ['server="x"'] };
    expect(names(insertRoute(root, [], 2, route))).toEqual(["payments", "tools", "new", "rest"]);
    expect(names(insertRoute(root, [], 0, route))).toEqual(["new", "payments", "tools", "rest"]);
    expect(names(insertRoute(root, [], 99, route))).toEqual(["payments", "tools", "rest", "new"]);
    expect(names(routeAt(insertRoute(root, [1, 0], 0, route), [1, 0]))).toEqual(["new"]);
    expect(names(root)).toEqual(["payments", "tools", "rest"]);
    expect(() => insertRoute(root, [4], 0, route)).toThrow(RoutePathError);
  });

  it("the shipped default stays valid after an insert, a move, an edit and a delete", () => {
    const config = structuredClone(DEFAULT_ROUTING_CONFIG);
    let route = insertRoute(config.route, [], 1, {
      name: "payments",
      receiver: "tool-owner",
      matchers: ['label.team="payments"'],
    });
    route = moveRoute(route, [1], 1);
    route = editRoute(route, [2], {
      name: "payments team",
      receiver: "tool-owner",
      matchers: ['server="p"'],
    });
    route = deleteRoute(route, [0]);
    expect(validateRoutingConfig({ ...config, route })).toMatchObject({ ok: true });
  });
});

describe("labels and the catch-all warning", () => {
  it("names a route by name, then id, then matchers; lists every subroute depth first", () => {
    const root = tree();
    expect(routeLabel(root, [])).toBe("root");
    expect(routeLabel({ id: "x1", matchers: ['a="b"'] }, [0])).toBe("x1");
    expect(routeLabel({ matchers: ['a="b"', 'c="d"'] }, [0])).toBe('a="b", c="d"');
    expect(routeLabel({}, [0])).toBe("(catch-all route)");
    expect(subrouteLabels(routeAt(root, [1]) as TRouteConfig, [1])).toEqual([
      "fs tools",
      "db tools",
      "db writes",
    ]);
  });

  it("a route without matchers is misplaced unless it is the last sibling", () => {
    expect(isMisplacedCatchAll([], 0, 3)).toBe(true);
    expect(isMisplacedCatchAll([], 2, 3)).toBe(false);
    expect(isMisplacedCatchAll(['a="b"'], 0, 3)).toBe(false);
  });
});
