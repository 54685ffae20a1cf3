import { TASKS_EXTENSION } from "./answer-accepted.js";

const CLIENT_CAPABILITIES_META_KEY = "io.modelcontextprotocol/clientCapabilities";

/**
 * True when a 2026-07-28 tools/call's `_meta` asks for progress or declares the tasks extension: only the SDK
 * path can answer it with progress notifications or a task (docs/api-rules.md §22), so the fast lane leaves it.
 */
export const takesTaskOrProgress = (meta: Readonly<Record<string, unknown>>): boolean => {
  if (meta.progressToken !== undefined) return true;
  const capabilities = meta[CLIENT_CAPABILITIES_META_KEY] as { extensions?: Record<string, unknown> } | undefined;
  return (
    typeof capabilities === "object" &&
    capabilities !== null &&
    capabilities.extensions?.[TASKS_EXTENSION] !== undefined
  );
};
