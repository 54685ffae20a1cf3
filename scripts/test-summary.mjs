// Adds up the vitest JSON reports of every package (test-results/vitest.json) into one closing line,
// "tests: N passed, N failed", so a reader (or CI) sees the whole run's count at the end.
import { globSync, readFileSync } from "node:fs";

let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of globSync("{packages,apps}/*/test-results/vitest.json")) {
  const report = JSON.parse(readFileSync(file, "utf8"));
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
}
process.stdout.write(`tests: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}\n`);
