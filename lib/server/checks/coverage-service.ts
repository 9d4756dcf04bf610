import { checksCovering } from "@/lib/checks/decide";
import type { Coverage } from "@/lib/dashboard/api-types";
import { outcomeCoverage } from "../db/coverage";
import { currentChecks } from "./checks-config-service";

/** Outcome coverage per server and tool, with the destination checks that read each tool's destination. */
export async function coverageWithChecks(since?: Date): Promise<Coverage> {
  const [coverage, config] = await Promise.all([outcomeCoverage(since), currentChecks()]);
  return {
    ...coverage,
    rows: coverage.rows.map((row) => ({
      ...row,
      checks: checksCovering(config.checks, row.server, row.tool),
    })),
  };
}
