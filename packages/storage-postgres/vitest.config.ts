import { defineConfig } from "vitest/config";
import { sourceConditions } from "../../vitest.source.js";

export default defineConfig({
  // Workspace packages resolve to their sources in tests (vitest.source.ts).
  ...sourceConditions,
  test: {
    include: ["test/**/*.test.ts"],
    // Starting PGlite and migrating takes a few seconds on a small machine.
    hookTimeout: 120_000,
    testTimeout: 60_000,
  },
});
