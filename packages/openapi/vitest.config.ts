import { defineConfig } from "vitest/config";
import { sourceConditions } from "../../vitest.source.js";

// Workspace packages resolve to their sources in tests (vitest.source.ts): no rebuild between an edit and a test.
// Property tests run hundreds of cases; they assert behaviour, not time, so a loaded machine gets 30 s for one.
export default defineConfig({ ...sourceConditions, test: { testTimeout: 30_000 } });
