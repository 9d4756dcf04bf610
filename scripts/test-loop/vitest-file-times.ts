// A Vitest reporter that writes each test file's whole time — environment, harness, import, hooks and tests — to
// the JSON file named by RECEIPT_FILE_TIMES. Vitest's own JSON report times a file from its first test, leaving
// out the imports and the beforeAll that starts an app, which is where an integration file spends most of its time.
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Reporter, TestModule } from "vitest/node";

export type FileTime = { file: string; project: string; seconds: number };

export default class FileTimesReporter implements Reporter {
  private readonly times: FileTime[] = [];

  onTestModuleEnd(module: TestModule) {
    const d = module.diagnostic();
    const ms =
      d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration;
    this.times.push({
      file: path.relative(process.cwd(), module.moduleId),
      project: module.project.name,
      seconds: ms / 1000,
    });
  }

  onTestRunEnd() {
    const target = process.env.RECEIPT_FILE_TIMES;
    if (target) writeFileSync(target, JSON.stringify(this.times));
  }
}
