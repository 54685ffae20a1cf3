import { TreeInterpreter } from "@jmespath-community/jmespath";
import { type FilterSandbox, sharedSandbox, suspectSandbox } from "../sandbox/filter-sandbox.js";
import { isSuspect, markOverrun, markWithinBudget } from "../sandbox/suspect-filters.js";
import type { CompiledFilter } from "./compile-filter.js";
import { IN_PROCESS_MAX_MULTIPLIER, IN_PROCESS_MAX_WORK_CHARS } from "./jmespath-cost.js";
import { DEFAULT_FILTER_BUDGET, type FilterBudget, type FilterOutcome, outputBudgetOf } from "./response-filter.js";

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

const tooLarge = (budget: FilterBudget): FilterOutcome => ({
  ok: false,
  reason: "over-budget",
  message: `the filter's output is larger than ${budget.maxOutputChars} characters`,
});

/**
 * Runs a compiled filter on an upstream answer. A JMESPath expression with a static cost bound runs here
 * when its input times that bound is within `IN_PROCESS_MAX_WORK_CHARS`; anything else runs in the sandbox
 * thread under `budget.deadlineMs` and its memory limits. The output may be no longer than the budget's
 * (by default the input's length, or 256 KiB: `outputBudgetOf`). Never throws: a failure or an overrun is
 * an outcome the runtime turns into a tool error naming the tool. `text`, when the caller has it, is the
 * answer's JSON text (it saves serialising the value again).
 */
export const applyFilter = async (
  filter: CompiledFilter,
  value: unknown,
  options: { readonly budget?: Partial<FilterBudget>; readonly text?: string; readonly sandbox?: FilterSandbox } = {},
): Promise<FilterOutcome> => {
  const input = options.text ?? JSON.stringify(value) ?? "null";
  const budget: FilterBudget = {
    deadlineMs: options.budget?.deadlineMs ?? DEFAULT_FILTER_BUDGET.deadlineMs,
    maxOutputChars: Math.min(
      options.budget?.maxOutputChars ?? outputBudgetOf(input.length),
      DEFAULT_FILTER_BUDGET.maxOutputChars,
    ),
  };
  const work = input.length * (filter.costBound ?? IN_PROCESS_MAX_MULTIPLIER);
  if (filter.inProcess && filter.ast !== undefined && work <= IN_PROCESS_MAX_WORK_CHARS) {
    let result: unknown;
    try {
      // The compiled tree, searched as `search(data, expression)` does, without parsing it again.
      result = TreeInterpreter.search(filter.ast, value as Parameters<typeof TreeInterpreter.search>[1]) ?? null;
    } catch (error) {
      return { ok: false, reason: error instanceof RangeError ? "over-budget" : "failed", message: messageOf(error) };
    }
    const text = JSON.stringify(result);
    return text.length > budget.maxOutputChars ? tooLarge(budget) : { ok: true, value: result, text };
  }
  // A filter that keeps running past its budget runs in the suspect sandbox, away from every other tool's.
  const sandbox = options.sandbox ?? (isSuspect(filter) ? suspectSandbox() : sharedSandbox());
  const outcome = await sandbox.run(
    {
      kind: "apply",
      language: filter.language,
      expression: filter.expression,
      text: input,
      maxOutputChars: budget.maxOutputChars,
    },
    budget.deadlineMs,
  );
  if (!outcome.ok) {
    if (outcome.reason === "over-budget") markOverrun(filter);
    return outcome;
  }
  markWithinBudget(filter);
  const text = outcome.text ?? "null";
  return { ok: true, value: JSON.parse(text), text };
};
