import { compile } from "@jmespath-community/jmespath";

/** A compiled JMESPath syntax tree. */
export type ExpressionNode = ReturnType<typeof compile>;
import { type FilterSandbox, sharedSandbox } from "../sandbox/filter-sandbox.js";
import { costMultiplier, IN_PROCESS_MAX_MULTIPLIER } from "./jmespath-cost.js";
import { FILTER_LANGUAGES, type FilterProblem, MAX_EXPRESSION_LENGTH, type ResponseFilter } from "./response-filter.js";

/** A filter that compiled: what `applyFilter` and `deriveOutputSchema` take. */
export interface CompiledFilter extends ResponseFilter {
  /** The JMESPath syntax tree (none for jq). */
  readonly ast: ExpressionNode | undefined;
  /**
   * True when the expression is cheap by construction and may run in the caller's thread (`jmespath-cost.ts`);
   * `applyFilter` still sends it to the sandbox when its input is too large for its cost bound.
   */
  readonly inProcess: boolean;
  /** The expression's cost bound, in multiples of its input (`costMultiplier`; none for jq or unbounded). */
  readonly costBound?: number | undefined;
}

export type CompileOutcome =
  | { readonly ok: true; readonly filter: CompiledFilter }
  | { readonly ok: false; readonly problem: FilterProblem };

/** How long checking a jq expression may take (it is compiled, never run). */
const JQ_CHECK_DEADLINE_MS = 1000;

const expressionProblem = (message: string): CompileOutcome => ({
  ok: false,
  problem: { path: "tool.responseFilter.expression", message },
});

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The JMESPath part of compiling: parsed, and placed in-process or in the sandbox by its cost bound. */
const compileJmespath = (expression: string): CompileOutcome => {
  let ast: ExpressionNode;
  try {
    ast = compile(expression);
  } catch (error) {
    return expressionProblem(`is not valid JMESPath: ${messageOf(error)}`);
  }
  const multiplier = costMultiplier(ast as unknown as { readonly type: string });
  const inProcess = multiplier !== null && multiplier <= IN_PROCESS_MAX_MULTIPLIER;
  return {
    ok: true,
    filter: {
      language: "jmespath",
      expression,
      ast,
      inProcess,
      ...(multiplier === null ? {} : { costBound: multiplier }),
    },
  };
};

/**
 * A stored filter made ready to run, at once (no sandbox trip): it was checked by `compileFilter` when it was
 * written. JMESPath is parsed again (cheap); jq is taken as written and compiled where it runs, in the
 * sandbox, so an expression that no longer compiles fails there, as a run's failure.
 */
export const prepareStoredFilter = (filter: ResponseFilter): CompileOutcome =>
  filter.language === "jmespath"
    ? compileJmespath(filter.expression)
    : { ok: true, filter: { language: "jq", expression: filter.expression, ast: undefined, inProcess: false } };

/**
 * Compiles a tool's `responseFilter`, or says where it is wrong (a 400 at `tool.responseFilter.expression`
 * on write). jq is compiled in the sandbox thread (`limit(0; …)`: compiled, never run); `import` and
 * `include` are refused (there are no modules to load).
 */
export const compileFilter = async (
  filter: ResponseFilter,
  options: { readonly sandbox?: FilterSandbox } = {},
): Promise<CompileOutcome> => {
  if (!FILTER_LANGUAGES.includes(filter.language))
    return {
      ok: false,
      problem: { path: "tool.responseFilter.language", message: `must be one of ${FILTER_LANGUAGES.join(", ")}` },
    };
  const { expression } = filter;
  if (expression.trim() === "") return expressionProblem("must not be empty");
  if (expression.length > MAX_EXPRESSION_LENGTH)
    return expressionProblem(`must be at most ${MAX_EXPRESSION_LENGTH} characters`);
  if (filter.language === "jmespath") return compileJmespath(expression);
  if (/(^|[^A-Za-z0-9_$])(import|include)\s/.test(expression))
    return expressionProblem("must not import or include jq modules");
  const sandbox = options.sandbox ?? sharedSandbox();
  const checked = await sandbox.run({ kind: "check", language: "jq", expression }, JQ_CHECK_DEADLINE_MS);
  if (!checked.ok && checked.reason === "over-budget")
    return expressionProblem("is too costly to compile (jq evaluates constant parts when compiling)");
  if (!checked.ok) return expressionProblem(`is not valid jq: ${checked.message.replace(/^jq: error: /, "")}`);
  return { ok: true, filter: { language: "jq", expression, ast: undefined, inProcess: false } };
};
