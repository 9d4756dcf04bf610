// Builds the publishable package: one ESM bundle (dist/index.js) with the contract and classifier
// code it needs from the repository's lib/ inlined, and one rolled-up dist/index.d.ts. The MCP SDKs
// stay external: they are the adopter's (optional peer dependencies).
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Extractor, ExtractorConfig } from "@microsoft/api-extractor";
import { build } from "esbuild";

const root = dirname(fileURLToPath(import.meta.url));
rmSync(join(root, "dist"), { recursive: true, force: true });
rmSync(join(root, ".build"), { recursive: true, force: true });

await build({
  entryPoints: [join(root, "src/index.ts")],
  outfile: join(root, "dist/index.js"),
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: ["@modelcontextprotocol/*"],
  legalComments: "inline",
  logLevel: "warning",
});

// Declarations: the repository's own tsc emits them per file, API Extractor rolls them into one.
const tsc = join(root, "../../node_modules/typescript/bin/tsc");
execFileSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], { stdio: "inherit" });
const extracted = Extractor.invoke(ExtractorConfig.loadFileAndPrepare(join(root, "api-extractor.json")), {
  localBuild: true,
  showVerboseMessages: false,
  // Warnings and errors only, on stderr: `npm pack --json` (prepack runs this) owns stdout.
  messageCallback: (message) => {
    message.handled = true;
    if (message.logLevel === "warning" || message.logLevel === "error") console.error(message.text);
  },
});
if (!extracted.succeeded) throw new Error(`api-extractor: ${extracted.errorCount} errors`);
rmSync(join(root, ".build"), { recursive: true, force: true });
