/**
 * Where a problem is, in words: `$.channels[5].targets[0].secret` is "channel 6 › target 1 › secret" (the JSON path
 * stays in the tooltip, as an imported file's problems name it).
 */
export function humanPath(path: string): string {
  const words = path
    .replace(/^\$\.?/, "")
    .split(".")
    .filter(Boolean)
    .map((segment) =>
      segment.replace(/^([A-Za-z]+)((?:\[\d+\])+)$/, (_, name: string, indexes: string) => {
        const singular = name.endsWith("s") ? name.slice(0, -1) : name;
        const numbers = [...indexes.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]) + 1);
        return `${singular} ${numbers.join(".")}`;
      }),
    );
  // "route › route 1" says the same twice: the list's own name goes when its item follows.
  const said = words.filter((word, index) => !words[index + 1]?.startsWith(`${word} `));
  return said.length > 0 ? said.join(" › ") : "the config";
}
