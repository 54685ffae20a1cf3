/**
 * @mcpsm/tool-search: ranks a server's tools for a query. Pure (no I/O): BM25 over split, stemmed
 * identifiers and text with a small thesaurus, or a `/regex/` over names and titles on a linear-time engine.
 */
export { compileSafeRegex, MAX_PATTERN_LENGTH, type SafeRegex } from "./safe-regex.js";
export { SYNONYM_WEIGHT, synonymsOf } from "./synonyms.js";
export { stem, terms, words } from "./text.js";
export {
  FIELD_BOOSTS,
  MAX_QUERY_LENGTH,
  REGEX_BUDGET_MS,
  type SearchableTool,
  type SearchOutcome,
  ToolIndex,
  type ToolIndexOptions,
  type ToolHit,
} from "./tool-index.js";
