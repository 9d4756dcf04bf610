import { checksCovering } from "@/lib/checks/decide";
import type { Coverage } from "@/lib/dashboard/api-types";
import { outcomeCoverage } from "../db/coverage";
import { readOtlpRefusals } from "../db/otlp-refusals";
import { currentChecks } from "./checks-config-service";

/**
 * Outcome coverage per server and tool, with the destination checks that read each tool's destination, and the
 * OTLP spans refused in the window (calls a reporter sent that no row counts).
 */
export async function coverageWithChecks(since?: Date): Promise<Coverage> {
  const [coverage, config, otlpRefusals] = await Promise.all([
    outcomeCoverage(since),
    currentChecks(),
    readOtlpRefusals(since),
  ]);
  return {
    ...coverage,
    otlpRefusals,
    rows: coverage.rows.map((row) => ({
      ...row,
      checks: checksCovering(config.checks, row.server, row.tool),
    })),
  };
}
