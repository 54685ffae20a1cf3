import type { FieldProblem } from "../errors/domain-errors.js";
import { safeRegExpProblem } from "../regexp/safe-regexp.js";
import type { JsonObject } from "../validation/text.js";

// docs/api-rules.md §15a: a `pattern` (or `patternProperties` key) the service's linear-time engine cannot run
// (lookaround, backreferences, a program too large) or that is no valid regular expression is dropped from the
// imported schema with a warning naming where it was; the operation still becomes a tool.

/** Keywords whose values are data, not schema: a `pattern` key inside them is not a pattern. */
const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples", "example"]);

/** Verdicts by pattern: a description repeats its patterns across operations. Bounded: cleared when full. */
const verdicts = new Map<string, string | undefined>();

const refusal = (pattern: string): string | undefined => {
  if (verdicts.has(pattern)) return verdicts.get(pattern);
  let verdict: string | undefined;
  try {
    new RegExp(pattern, "u");
    verdict = safeRegExpProblem(pattern);
  } catch {
    verdict = "is not a valid regular expression";
  }
  if (verdicts.size >= 5_000) verdicts.clear();
  verdicts.set(pattern, verdict);
  return verdict;
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Whether any pattern of a schema would be refused (a read-only walk: most schemas have none). */
const hasRefusedPattern = (node: unknown): boolean => {
  if (Array.isArray(node)) return node.some(hasRefusedPattern);
  if (!isObject(node)) return false;
  for (const [key, value] of Object.entries(node)) {
    if (DATA_KEYWORDS.has(key)) continue;
    if (key === "pattern" && typeof value === "string" && refusal(value) !== undefined) return true;
    if (key === "patternProperties" && isObject(value) && Object.keys(value).some((p) => refusal(p) !== undefined))
      return true;
    if (typeof value === "object" && value !== null && hasRefusedPattern(value)) return true;
  }
  return false;
};

/**
 * `schema` (the tool's `field`) without the patterns the service will not run; each one dropped is a warning
 * located at the operation's `location`, naming its JSON path in the tool (`tool.reqBodyJSONSchema.properties.code.pattern`).
 */
export const withoutUnsafePatterns = (
  schema: JsonObject,
  field: string,
  location: string,
  warnings: Array<FieldProblem>,
): JsonObject => {
  if (!hasRefusedPattern(schema)) return schema;
  let dropped = false;
  const visit = (node: unknown, at: string): unknown => {
    if (Array.isArray(node)) return node.map((item, i) => visit(item, `${at}[${i}]`));
    if (!isObject(node)) return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      const here = `${at}.${key}`;
      if (DATA_KEYWORDS.has(key)) out[key] = value;
      else if (key === "pattern" && typeof value === "string") {
        const problem = refusal(value);
        if (problem === undefined) out[key] = value;
        else {
          dropped = true;
          warnings.push({
            path: location,
            message: `${here}: the pattern ${JSON.stringify(value.slice(0, 100))} ${problem}; dropped from the tool's schema`,
          });
        }
      } else if (key === "patternProperties" && isObject(value)) {
        const kept: Record<string, unknown> = {};
        for (const [pattern, sub] of Object.entries(value)) {
          const problem = refusal(pattern);
          if (problem === undefined) kept[pattern] = visit(sub, `${here}[${JSON.stringify(pattern)}]`);
          else {
            dropped = true;
            warnings.push({
              path: location,
              message: `${here}[${JSON.stringify(pattern.slice(0, 100))}]: the pattern ${problem}; dropped with its schema from the tool's schema`,
            });
          }
        }
        out[key] = kept;
      } else out[key] = visit(value, here);
    }
    return out;
  };
  const result = visit(schema, `tool.${field}`) as JsonObject;
  return dropped ? result : schema;
};
