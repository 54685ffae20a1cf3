import {
  ARGUMENT_PARTS,
  type ArgumentPart,
  partSchema,
  REGEXP_WORK_BUDGET,
  RegExpBudgetExceeded,
  safeRegExpEngine,
  withRegExpBudget,
} from "@mcpsm/domain/mcp";
import type { ToolRow } from "@mcpsm/domain/storage";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import draft07 from "ajv/dist/refs/json-schema-draft-07.json" with { type: "json" };

// `tools/call` arguments checked against the tool's three schemas with ajv. Validators are compiled once per
// tool revision (tool id + updatedAt) and kept in a bounded cache shared by every server using the tool.

// Tenant-written `pattern`s run on the linear-time engine, within one work budget per call (docs/security.md).
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false, code: { regExp: safeRegExpEngine } });
ajv.addMetaSchema(draft07);

const MAX_CACHED = 5_000;
const cache = new Map<string, ValidateFunction | "invalid">();

const validatorFor = (tool: ToolRow, part: ArgumentPart | "output", schema: Record<string, unknown>) => {
  const key = `${tool.id}:${tool.updatedAt.getTime()}:${part}`;
  let fn = cache.get(key);
  if (fn === undefined) {
    try {
      fn = ajv.compile(schema);
    } catch {
      fn = "invalid";
    }
    // Compiled functions keep working after the schema leaves ajv's registry; removing it bounds memory.
    ajv.removeSchema(schema);
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
    cache.set(key, fn);
  }
  return fn;
};

/**
 * Every problem of a tool's `structuredContent` against its declared `outputSchema` (`schema`), as readable
 * lines (at most 10); empty when it matches.
 */
export const outputProblems = (
  tool: ToolRow,
  schema: Record<string, unknown>,
  structured: unknown,
): ReadonlyArray<string> => {
  const validate = validatorFor(tool, "output", schema);
  if (validate === "invalid") return [];
  try {
    if (withRegExpBudget(REGEXP_WORK_BUDGET, () => validate(structured))) return [];
  } catch (error) {
    if (error instanceof RegExpBudgetExceeded) return [];
    throw error;
  }
  return (validate.errors ?? [])
    .slice(0, 10)
    .map(
      (e) =>
        `${e.instancePath === "" ? "(answer)" : e.instancePath.slice(1).replaceAll("/", ".")}: ${e.message ?? "is invalid"}`,
    );
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Every problem with the arguments of a call of `tool`, as readable lines; empty when they are valid. */
export const argumentProblems = (tool: ToolRow, args: unknown): ReadonlyArray<string> => {
  if (args !== undefined && !isRecord(args)) return ["arguments: must be an object"];
  const given = args ?? {};
  try {
    return withRegExpBudget(REGEXP_WORK_BUDGET, () => partProblems(tool, given));
  } catch (error) {
    if (error instanceof RegExpBudgetExceeded)
      return [`arguments: too long to check against the tool's patterns (${error.message})`];
    throw error;
  }
};

const partProblems = (tool: ToolRow, given: Record<string, unknown>): ReadonlyArray<string> => {
  const problems: Array<string> = [];
  const known = new Set<string>();
  for (const part of ARGUMENT_PARTS) {
    const schema = partSchema(tool, part);
    if (schema === undefined) continue;
    known.add(part);
    const value = given[part];
    if (value === undefined) {
      if (Array.isArray(schema.required) && schema.required.length > 0) problems.push(`${part}: is required`);
      continue;
    }
    const validate = validatorFor(tool, part, schema);
    if (validate === "invalid") {
      problems.push(`${part}: the tool's schema cannot be compiled; ask its owner to fix it`);
      continue;
    }
    if (!validate(value))
      for (const error of validate.errors ?? []) {
        const where = `${part}${error.instancePath.replaceAll("/", ".")}`;
        const extra =
          error.keyword === "additionalProperties"
            ? ` ('${String((error.params as { additionalProperty?: string }).additionalProperty)}')`
            : error.keyword === "enum"
              ? ` (${JSON.stringify((error.params as { allowedValues?: unknown }).allowedValues)})`
              : "";
        problems.push(`${where}: ${error.message ?? "is invalid"}${extra}`);
      }
  }
  for (const key of Object.keys(given))
    if (!known.has(key))
      problems.push(
        `${key}: unknown argument; this tool takes ${known.size === 0 ? "no arguments" : [...known].join(", ")}`,
      );
  return problems;
};
