import { defineConfig } from "vitest/config";

const conditions = ["@mcpsm/source", "module", "node", "development|production"];

export default defineConfig({
  // Workspace packages resolve to their sources in tests (as ../../vitest.source.ts says; written out here,
  // since this file is typechecked with the package's tests, whose rootDir is the package).
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ["test/**/*.test.ts"],
    // Starting PGlite and migrating takes a few seconds on a small machine.
    hookTimeout: 120_000,
    testTimeout: 60_000,
  },
});
