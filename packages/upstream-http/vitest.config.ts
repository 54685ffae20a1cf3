import { defineConfig } from "vitest/config";
import { sourceConditions } from "../../vitest.source.js";

// Workspace packages resolve to their sources in tests (vitest.source.ts): no rebuild between an edit and a test.
export default defineConfig({ ...sourceConditions });
