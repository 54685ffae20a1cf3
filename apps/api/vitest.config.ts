import { defineConfig } from "vitest/config";

// The HTTP suite runs on the in-memory store, and once more on PostgreSQL when TEST_DATABASE_URL names a
// server (CI sets it): test/support/test-storage.ts switches on API_TEST_STORAGE. Files whose subject is
// not the store (start-up, the browser page, the third-party MCP tools) run only in the first pass.
const storeIndependent = [
  "test/graceful-shutdown.test.ts",
  "test/launcher-memory-settings.test.ts",
  "test/memory-reducing-collection.test.ts",
  "test/modules-on-demand.test.ts",
  "test/create-embedded-database.test.ts",
  "test/docs-page.test.ts",
  "test/mcp-interop.test.ts",
  "test/openapi.test.ts",
  // The fault tests pick their own databases (the embedded one, or throwaway ones on TEST_DATABASE_URL).
  "test/durability.test.ts",
  "test/database-outage.test.ts",
  "test/migrate-command.test.ts",
  "test/shared-database-caches.test.ts",
  "test/serialised-answers.test.ts",
  "test/serialised-answers-embedded.test.ts",
  // Security tests of authentication modes, rate limits, headers, the route inventory and upstream answers.
  "test/security-api10-unsafe-consumption.test.ts",
  "test/security-api2-authentication.test.ts",
  "test/security-api4-resource-consumption.test.ts",
  "test/security-api5-function-authorization.test.ts",
  "test/security-api7-ssrf.test.ts",
  "test/security-api8-misconfiguration.test.ts",
  "test/security-api9-inventory.test.ts",
  "test/security-secrets.test.ts",
];
const common = {
  include: ["test/**/*.test.ts"],
  // Every file starts its own listening service; they run in parallel, one service per file.
  testTimeout: 30_000,
  hookTimeout: 60_000,
};

export default defineConfig({
  test: {
    // Vitest's default on a 2-core machine is one file at a time; these files mostly wait on sockets, PostgreSQL
    // and child processes, so three at once halve the wall time (2,302 s of tests in 1,168 s under load).
    maxWorkers: 3,
    projects: [
      { test: { ...common, name: "memory" } },
      ...(process.env.TEST_DATABASE_URL
        ? [{ test: { ...common, name: "postgres", exclude: storeIndependent, env: { API_TEST_STORAGE: "postgres" } } }]
        : []),
    ],
  },
});
