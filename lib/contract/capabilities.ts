/**
 * Capabilities as the contract's dotted key paths: every key of the object, at every depth
 * ({"tools":{"listChanged":true}} → "tools", "tools.listChanged"). A key set to `false`
 * is the peer saying "not supported", so it is left out: the classifier's "present" means
 * "listed exactly", and listing it would make a missing capability look present.
 */
export function capabilityPaths(capabilities: unknown, prefix = ""): string[] {
  if (!capabilities || typeof capabilities !== "object" || Array.isArray(capabilities)) return [];
  const paths: string[] = [];
  for (const [key, value] of Object.entries(capabilities as Record<string, unknown>)) {
    if (value === false) continue;
    const path = prefix ? `${prefix}.${key}` : key;
    paths.push(path);
    paths.push(...capabilityPaths(value, path));
  }
  return paths;
}

/** The modern era's tasks extension; its settings are listed under the extension's own path. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/**
 * The contract names the tasks feature "tasks" in both eras, so a run can require "tasks" once:
 * a modern peer that lists the extension `extensions.io.modelcontextprotocol/tasks` gets "tasks" too.
 */
export function withTasksFeature(paths: string[]): string[] {
  const extension = `extensions.${TASKS_EXTENSION}`;
  return paths.includes(extension) && !paths.includes("tasks") ? [...paths, "tasks"] : paths;
}
