import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import pg from "pg";

// Prisma's CLI downloads a native schema engine, which this network cannot reach. The same engine ships on npm
// compiled to WebAssembly; Node 20 cannot `import` a .wasm module, so it is instantiated here with its JS glue.

type SchemaEngineModule = typeof import("@prisma/schema-engine-wasm");
export type SchemaEngine = Awaited<ReturnType<SchemaEngineModule["SchemaEngine"]["new"]>>;

const require = createRequire(import.meta.url);
let glue: Promise<SchemaEngineModule> | undefined;

async function loadGlue(): Promise<SchemaEngineModule> {
  const bg = (await import(
    "@prisma/schema-engine-wasm/schema_engine_bg"
  )) as unknown as SchemaEngineModule & {
    __wbg_set_wasm(exports: WebAssembly.Exports): void;
  };
  const glueDir = path.dirname(require.resolve("@prisma/schema-engine-wasm/schema_engine_bg"));
  const wasmPath = path.join(glueDir, "schema_engine_bg.wasm");
  const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), { "./schema_engine_bg.js": bg });
  bg.__wbg_set_wasm(instance.exports);
  (instance.exports.__wbindgen_start as () => void)();
  return bg;
}

/**
 * Runs `work` with a schema engine on the given database, then closes its connections: the engine does not,
 * and an open connection would keep e.g. a template database from being cloned.
 */
export async function withSchemaEngine<T>(
  connectionString: string,
  datamodel: string,
  work: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  glue ??= loadGlue();
  const { SchemaEngine } = await glue;
  const pool = new pg.Pool({ connectionString, max: 2 });
  const adapter = bindMigrationAwareSqlAdapterFactory(new PrismaPg(pool));
  const ignoreLogs = () => {};
  const engine = await SchemaEngine.new({ datamodels: [["schema.prisma", datamodel]] }, ignoreLogs, adapter);
  try {
    return await work(engine);
  } finally {
    engine.free();
    await pool.end();
  }
}
