import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Starting PGlite and migrating takes a few seconds on a small machine.
    hookTimeout: 120_000,
    testTimeout: 60_000,
  },
});
