import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Every file starts its own listening service; they run in parallel, one service per file.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
