import { tmpdir } from "node:os";
import path from "node:path";

/** The file in which start-app.ts leaves the data folder of the e2e app listening on `port`. */
export const e2eAppInfoPath = (port: string | number) => path.join(tmpdir(), `receipt-e2e-app-${port}.json`);
