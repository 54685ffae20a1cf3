import { TreeInterpreter } from "@jmespath-community/jmespath";
import { type FilterSandbox, sharedSandbox } from "../sandbox/filter-sandbox.js";
import type { CompiledFilter } from "./compile-filter.js";
import { DEFAULT_FILTER_BUDGET, type FilterBudget, type FilterOutcome } from "./response-filter.js";

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

const tooLarge = (budget: FilterBudget): FilterOutcome => ({
  ok: false,
  reason: "over-budget",
  message: `the filter's output is larger than ${budget.maxOutputChars} characters`,
});

/**
 * Runs a compiled filter on an upstream answer. A JMESPath expression with a static cost bound runs here
 * (its work is at most a fixed multiple of the input's); anything else runs in the sandbox thread under
 * `budget.deadlineMs` and its memory limits. Never throws: a failure or an overrun is an outcome the runtime
 * turns into a tool error naming the tool. `text`, when the caller has it, is the answer's JSON text (it
 * saves serialising the value again for the sandbox).
 */
export const applyFilter = async (
  filter: CompiledFilter,
  value: unknown,
  options: { readonly budget?: Partial<FilterBudget>; readonly text?: string; readonly sandbox?: FilterSandbox } = {},
): Promise<FilterOutcome> => {
  const budget: FilterBudget = { ...DEFAULT_FILTER_BUDGET, ...options.budget };
  if (filter.inProcess && filter.ast !== undefined) {
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
  const input = options.text ?? JSON.stringify(value);
  const sandbox = options.sandbox ?? sharedSandbox();
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
  if (!outcome.ok) return outcome;
  const text = outcome.text ?? "null";
  return { ok: true, value: JSON.parse(text), text };
};
