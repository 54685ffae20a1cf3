import { createHash } from "node:crypto";
import { Schema } from "effect";
import { Ajv2020 } from "ajv/dist/2020.js";
import draft07 from "ajv/dist/refs/json-schema-draft-07.json" with { type: "json" };
import { safeRegExpEngine, safeRegExpProblem } from "../regexp/safe-regexp.js";
import { boundedJsonText } from "./bounded-json.js";
import { JsonObject } from "./text.js";

/** Largest accepted JSON Schema, measured as its JSON text. */
export const MAX_JSON_SCHEMA_BYTES = 64 * 1024;

// The compiled functions are thrown away (they only prove the schema compiles): no code optimisation.
// Patterns compile with the same linear-time engine the MCP runtime validates arguments with.
const ajv = new Ajv2020({
  strict: false,
  allErrors: false,
  validateFormats: false,
  code: { optimize: false, regExp: safeRegExpEngine },
});

/** Keywords whose values are data, not schema: a `pattern` or `$ref` inside them means nothing. */
const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples", "example"]);

/**
 * What compiling would find beyond the meta-schema, for a schema without references: an invalid regular
 * expression (ajv compiles `pattern` and `patternProperties` keys with the `u` flag). Undefined when the
 * schema holds a reference (then only compiling can tell) or nothing is wrong.
 */
const withoutCompiling = (schema: unknown): { readonly refs: boolean; readonly problem?: string } => {
  // A reference into the schema's own `$defs` (what an OpenAPI import writes, §15a) resolves when the entry
  // exists: no need to compile to know it.
  const defs = (schema as { $defs?: unknown }).$defs;
  const resolvesLocally = (ref: unknown) => {
    if (typeof ref !== "string" || !ref.startsWith("#/$defs/") || ref.slice(8).includes("/")) return false;
    if (typeof defs !== "object" || defs === null) return false;
    try {
      return Object.hasOwn(defs, decodeURIComponent(ref.slice(8)).replace(/~1/g, "/").replace(/~0/g, "~"));
    } catch {
      return false;
    }
  };
  const stack: Array<unknown> = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...node);
    else if (typeof node === "object" && node !== null)
      for (const [key, value] of Object.entries(node)) {
        if (DATA_KEYWORDS.has(key)) continue;
        if (key === "$ref" && resolvesLocally(value)) continue;
        if (key === "$ref" || key === "$dynamicRef" || key === "$recursiveRef") return { refs: true };
        const patterns =
          key === "pattern" && typeof value === "string"
            ? [value]
            : key === "patternProperties" && typeof value === "object" && value !== null
              ? Object.keys(value)
              : [];
        for (const pattern of patterns)
          try {
            new RegExp(pattern, "u");
          } catch {
            return {
              refs: false,
              problem: `is not a valid JSON Schema: pattern ${JSON.stringify(pattern)} is not a valid regular expression`,
            };
          }
        if (typeof value === "object" && value !== null) stack.push(value);
      }
  }
  return { refs: false };
};
ajv.addMetaSchema(draft07);

/**
 * The first regex of a schema (`pattern`, a `patternProperties` key) the service will not run, with its
 * location (`properties.a.pattern`), so a stored schema never fails when a call meets it.
 */
const regexProblem = (node: unknown, path: string): string | undefined => {
  if (typeof node !== "object" || node === null) return undefined;
  const at = (key: string) => (path === "" ? key : `${path}.${key}`);
  if (!Array.isArray(node)) {
    const record = node as Record<string, unknown>;
    if (typeof record.pattern === "string") {
      const problem = safeRegExpProblem(record.pattern);
      if (problem !== undefined) return `${at("pattern")}: ${problem}`;
    }
    const patternProperties = record.patternProperties;
    if (typeof patternProperties === "object" && patternProperties !== null && !Array.isArray(patternProperties))
      for (const key of Object.keys(patternProperties)) {
        const problem = safeRegExpProblem(key);
        if (problem !== undefined) return `${at(`patternProperties[${JSON.stringify(key)}]`)}: ${problem}`;
      }
  }
  for (const [key, child] of Object.entries(node)) {
    if (DATA_KEYWORDS.has(key)) continue;
    const problem = regexProblem(child, Array.isArray(node) ? `${path}[${key}]` : at(key));
    if (problem !== undefined) return problem;
  }
  return undefined;
};

/**
 * Verdicts on recently checked schemas, by a hash of their JSON text: an OpenAPI import checks hundreds of
 * tools whose schemas often repeat (the same path arguments, the same body for create and replace), and
 * compiling is by far the dearest part of validation. Bounded in bytes (keys and verdicts): cleared when full.
 */
const verdicts = new Map<string, string | undefined>();
const MAX_VERDICT_BYTES = 1024 * 1024;
let verdictBytes = 0;

const TOO_LARGE = `must be at most ${MAX_JSON_SCHEMA_BYTES / 1024} KiB`;

/** Why `schema` is not a usable JSON Schema (2020-12, or draft-07 when it says so), or undefined. */
export const jsonSchemaProblem = (schema: JsonObject): string | undefined => {
  // Never written out past the limit: a schema sharing sub-schemas may stand for gigabytes of text.
  const text = boundedJsonText(schema, MAX_JSON_SCHEMA_BYTES);
  if (text === undefined) return TOO_LARGE;
  const key = createHash("sha256").update(text, "utf8").digest("base64");
  if (verdicts.has(key)) return verdicts.get(key);
  const verdict = checkSchema(schema);
  const bytes = key.length + (verdict?.length ?? 0);
  if (verdictBytes + bytes > MAX_VERDICT_BYTES) {
    verdicts.clear();
    verdictBytes = 0;
  }
  verdicts.set(key, verdict);
  verdictBytes += bytes;
  return verdict;
};

const checkSchema = (schema: JsonObject): string | undefined => {
  try {
    if (!ajv.validateSchema(schema)) return `is not a valid JSON Schema: ${ajv.errorsText(ajv.errors)}`;
    const unsafe = regexProblem(schema, "");
    if (unsafe !== undefined) return `has a regular expression the service will not run: ${unsafe}`;
    // Compiling costs milliseconds per schema (seconds for an imported description); a schema that passes
    // the meta-schema and holds no reference compiles unless a regular expression is broken, checked here.
    const shortcut = withoutCompiling(schema);
    if (!shortcut.refs) return shortcut.problem;
    // Compiling also catches unresolvable $refs; the compiled function is not kept.
    ajv.compile(schema);
    ajv.removeSchema(schema);
  } catch (e) {
    return `is not a valid JSON Schema: ${e instanceof Error ? e.message : String(e)}`;
  }
  return undefined;
};

/** A JSON Schema object; `{}` means "none". */
export const JsonSchemaObject = JsonObject.pipe(
  Schema.filter((s) => (Object.keys(s).length === 0 ? true : (jsonSchemaProblem(s) ?? true)), {
    jsonSchema: {
      description: "a JSON Schema (2020-12, or draft-07 when its $schema says so) of at most 64 KiB; {} for none",
    },
  }),
  Schema.annotations({ description: "a JSON Schema; {} for none" }),
);

/** A JSON Schema of `type: "object"`; `{}` means "none". */
export const ObjectJsonSchema = JsonSchemaObject.pipe(
  Schema.filter(
    (s) => (Object.keys(s).length === 0 || s.type === "object" ? true : 'must be a JSON Schema with type "object"'),
    {
      jsonSchema: {
        description:
          'a JSON Schema with type "object" (2020-12, or draft-07 when its $schema says so) of at most 64 KiB; {} for none',
      },
    },
  ),
);
