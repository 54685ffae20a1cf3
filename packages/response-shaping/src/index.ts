/**
 * @mcpsm/response-shaping: what a tool answers, shaped before a model reads it (the API contract's §19).
 * A bounded JMESPath or jq filter, the filtered result's `outputSchema`, o200k_base token counts, and a cut
 * at JSON boundaries to a token budget. No I/O; the one thread it starts is the filter sandbox.
 */
export { applyFilter } from "./filter/apply-filter.js";
export {
  type CompiledFilter,
  type CompileOutcome,
  compileFilter,
  prepareStoredFilter,
} from "./filter/compile-filter.js";
export { costMultiplier, IN_PROCESS_MAX_MULTIPLIER, IN_PROCESS_MAX_WORK_CHARS } from "./filter/jmespath-cost.js";
export {
  DEFAULT_FILTER_BUDGET,
  FILTER_LANGUAGES,
  type FilterBudget,
  type FilterLanguage,
  type FilterOutcome,
  type FilterProblem,
  MAX_EXPRESSION_LENGTH,
  OUTPUT_FLOOR_CHARS,
  outputBudgetOf,
  type ResponseFilter,
} from "./filter/response-filter.js";
export { type CutNote, type FitOptions, type FitOutcome, fitToTokens, narrowingAdvice } from "./fit/fit-to-tokens.js";
export { fitTextToTokens, type TextFitOutcome } from "./fit/fit-text.js";
export { type PagingHints, pagingHintsOf } from "./fit/paging-hints.js";
export {
  closeSandboxes,
  FilterSandbox,
  SANDBOX_RESOURCE_LIMITS,
  SUSPECT_MAX_QUEUE,
  sharedSandbox,
  suspectSandbox,
} from "./sandbox/filter-sandbox.js";
export { isSuspect, SUSPECT_AFTER_OVERRUNS, SUSPECT_FOR_MS } from "./sandbox/suspect-filters.js";
export {
  deriveOutputSchema,
  deriveResultSchema,
  type JsonSchema,
  PERMISSIVE_OUTPUT_SCHEMA,
  structuredContentOf,
} from "./schema/derive-output-schema.js";
export {
  boundedTokenCount,
  countTokens,
  EXACT_COUNT_MAX_CHARS,
  estimateTokens,
  measureTokens,
  PREFIX_CHARS_PER_TOKEN,
  type TokenMeasure,
} from "./tokens/count-tokens.js";

/** The server's `maxResultTokens` when it sets none. */
export const DEFAULT_MAX_RESULT_TOKENS = 25_000;
