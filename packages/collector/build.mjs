// Builds the publishable package: one ESM bundle (dist/index.js) with the contract and classifier
// code it needs from the repository's lib/ inlined, and one rolled-up dist/index.d.ts that names no
// MCP SDK. The MCP SDKs stay external: they are the adopter's (optional peer dependencies). The
// per-SDK entries (dist/v1.*, dist/v2.*) re-export the main entry and type `createCollector` with
// one SDK's own types each: their .d.ts is tsc's, importing ./index.js and that SDK only.
import { execFileSync } from "node:child_process";
import { copyFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
const SDK_ENTRIES = { v1: "@modelcontextprotocol/sdk", v2: "@modelcontextprotocol/client" };
for (const [entry, sdk] of Object.entries(SDK_ENTRIES)) {
  const declarations = join(root, `.build/types/packages/collector/src/${entry}.d.ts`);
  const imported = [...readFileSync(declarations, "utf8").matchAll(/from\s+["']([^"']+)["']/g)].map(
    (m) => m[1],
  );
  const stray = imported.filter((name) => name !== "./index.js" && !name.startsWith(sdk));
  if (stray.length > 0) throw new Error(`dist/${entry}.d.ts may import only ./index.js and ${sdk}: ${stray}`);
  copyFileSync(declarations, join(root, `dist/${entry}.d.ts`));
  // The same functions as the main entry: only their types differ.
  writeFileSync(join(root, `dist/${entry}.js`), 'export * from "./index.js";\n');
}
rmSync(join(root, ".build"), { recursive: true, force: true });
