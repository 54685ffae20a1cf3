/** A tool's `responseFilter` (the API contract's §19): the language and the tenant-written expression. */
export type FilterLanguage = "jmespath" | "jq";

export interface ResponseFilter {
  readonly language: FilterLanguage;
  readonly expression: string;
}

export const FILTER_LANGUAGES: ReadonlyArray<FilterLanguage> = ["jmespath", "jq"];

/** The longest expression accepted on write. */
export const MAX_EXPRESSION_LENGTH = 4096;

/** Where a refused filter is wrong, for a 400 problem's `errors[].path`, and why. */
export interface FilterProblem {
  readonly path: "tool.responseFilter.expression" | "tool.responseFilter.language";
  readonly message: string;
}

/** What one run of a filter may spend. */
export interface FilterBudget {
  /** Wall time from the start of the run; past it the run is stopped (default 100 ms). */
  readonly deadlineMs: number;
  /**
   * The longest output, in characters of its JSON text. Default: the input's length, or
   * `OUTPUT_FLOOR_CHARS` when the input is shorter (`outputBudgetOf`): a filter trims, and the caller's
   * thread parses, fits and counts what it answers, so a filter may not hand it more than the upstream could.
   */
  readonly maxOutputChars: number;
}

/** The output a filter may always produce, whatever its input's size (256 KiB of JSON text). */
export const OUTPUT_FLOOR_CHARS = 256 * 1024;

/** The default output budget of a filter run on `inputChars` characters of JSON. */
export const outputBudgetOf = (inputChars: number): number => Math.max(inputChars, OUTPUT_FLOOR_CHARS);

/** The default deadline; `maxOutputChars` here is the most any run may produce (`outputBudgetOf` is lower). */
export const DEFAULT_FILTER_BUDGET: FilterBudget = { deadlineMs: 100, maxOutputChars: 16 * 1024 * 1024 };

/** A run's outcome: the filtered value and its JSON text, or why there is none. */
export type FilterOutcome =
  | { readonly ok: true; readonly value: unknown; readonly text: string }
  | {
      readonly ok: false;
      /** `failed`: the expression failed on this input; `over-budget`: it ran past its time or size. */
      readonly reason: "failed" | "over-budget";
      readonly message: string;
    };
