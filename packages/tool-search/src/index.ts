/**
 * @mcpsm/tool-search: ranks a server's tools for a query. Pure (no I/O, nothing loaded at run time): BM25
 * over split, stemmed identifiers and text, phrasal verbs read as API words, widened by a thesaurus and everyday
 * words, re-ranked by REST
 * intent; or a `/regex/` over names and titles on a linear-time engine.
 */
export { EVERYDAY_WEIGHT, everydayWords } from "./everyday-words.js";
export { ACT, INTENT_BOOST, intentFactor, lastSegment, methodIntent } from "./intent.js";
export { ONE_LINE_MAX, oneLine } from "./one-line.js";
export { rewritePhrases } from "./phrases.js";
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
