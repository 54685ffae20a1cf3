import type { FieldProblem } from "../errors/domain-errors.js";
import { MAX_JSON_SCHEMA_BYTES } from "../validation/json-schema.js";
import type { JsonObject } from "../validation/text.js";

// docs/api-rules.md §15a: an imported schema is kept within the 64 KiB of a tool schema by its annotations
// first. Real descriptions spend most of their schemas' bytes on prose (PayPal's order body: 88 KB, 70 of
// them `description`s): when a compact schema is still too large, its descriptions are cut to their first
// sentence, then kept on the top-level properties only, then dropped with `examples` and `title`s, each step
// only if the one before did not fit, and with a warning. What validation checks is never changed.

/** Keywords whose values are data, not schema. */
const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples", "example"]);

/** Keywords whose values map names to schemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "dependentSchemas", "$defs"]);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const firstSentence = (text: string): string => {
  const end = text.search(/[.!?](\s|$)/);
  const sentence = end < 0 ? text : text.slice(0, end + 1);
  return sentence.length <= 160 ? sentence : `${sentence.slice(0, 159)}…`;
};

type Step = (key: string, value: unknown, depth: number) => { keep: boolean; value?: unknown };

const STEPS: ReadonlyArray<readonly [string, Step]> = [
  [
    "its descriptions were cut to their first sentence",
    (key, value) =>
      key === "description" && typeof value === "string"
        ? { keep: true, value: firstSentence(value) }
        : { keep: key !== "examples" },
  ],
  [
    "its descriptions were kept on its top-level properties only",
    (key, value, depth) =>
      key === "description" && typeof value === "string"
        ? depth <= 2
          ? { keep: true, value: firstSentence(value) }
          : { keep: false }
        : { keep: key !== "examples" },
  ],
  [
    "its descriptions, titles and examples were dropped",
    (key) => ({ keep: !["description", "title", "examples"].includes(key) }),
  ],
];

/** Applies one step to every schema node (not to data). `depth` counts object levels from the root. */
const applied = (node: unknown, step: Step, depth: number): unknown => {
  if (Array.isArray(node)) return node.map((item) => applied(item, step, depth));
  if (!isObject(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (DATA_KEYWORDS.has(key)) {
      if (step(key, value, depth).keep) out[key] = value;
      continue;
    }
    const verdict = step(key, value, depth);
    if (!verdict.keep) continue;
    // Names in these maps are not keywords: `properties.description` is a property called "description".
    out[key] =
      verdict.value !== undefined
        ? verdict.value
        : SCHEMA_MAPS.has(key) && isObject(value)
          ? Object.fromEntries(
              Object.entries(value).map(([name, s]) => [
                name,
                applied(s, step, key === "$defs" ? depth + 3 : depth + 1),
              ]),
            )
          : applied(value, step, depth);
  }
  return out;
};

const size = (schema: unknown) => Buffer.byteLength(JSON.stringify(schema), "utf8");

/** At least how many bytes `node` takes as JSON (string lengths, not their escapes), counting up to `limit`. */
const leastSize = (node: unknown, limit: number): number => {
  let total = 0;
  const stack: Array<unknown> = [node];
  while (stack.length > 0 && total <= limit) {
    const next = stack.pop();
    if (typeof next === "string") total += next.length + 2;
    else if (Array.isArray(next)) {
      total += 1 + next.length;
      stack.push(...next);
    } else if (typeof next === "object" && next !== null)
      for (const [key, value] of Object.entries(next)) {
        total += key.length + 4;
        stack.push(value);
      }
    else total += String(next).length;
  }
  return total;
};

/** Annotations are rarely more than three quarters of a schema: a larger one is not tried. */
const HOPELESS = 4 * MAX_JSON_SCHEMA_BYTES;

/**
 * `schema` (the tool's `field`) within 64 KiB by its annotations when it can be; a warning at `location`
 * says what was shortened. Undefined when no step brings it under the limit.
 */
export const withinSchemaLimit = (
  schema: JsonObject,
  field: string,
  location: string,
  warnings: Array<FieldProblem>,
): JsonObject | undefined => {
  if (Object.keys(schema).length === 0) return schema;
  const least = leastSize(schema, HOPELESS);
  if (least > HOPELESS) return undefined;
  // A character takes at most 6 bytes in JSON (an escape, or 3 bytes of UTF-8): small schemas surely fit.
  if (least * 6 <= MAX_JSON_SCHEMA_BYTES || size(schema) <= MAX_JSON_SCHEMA_BYTES) return schema;
  for (const [what, step] of STEPS) {
    const shortened = applied(schema, step, 0) as JsonObject;
    if (size(shortened) <= MAX_JSON_SCHEMA_BYTES) {
      warnings.push({ path: location, message: `tool.${field} is over 64 KiB with its annotations: ${what}` });
      return shortened;
    }
  }
  return undefined;
};

/** A schema node reduced to its type (or to any value). */
const typeOnly = (node: unknown): unknown =>
  isObject(node) && (typeof node.type === "string" || Array.isArray(node.type)) ? { type: node.type } : {};

/** `node` without its `$defs`, each local reference into them made `{}` (any value), cut below `depth` levels. */
const loosened = (node: unknown, depth: number): unknown => {
  if (Array.isArray(node)) return node.map((item) => loosened(item, depth));
  if (!isObject(node)) return node;
  if (depth <= 0) return typeOnly(node);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$defs" || (key === "$ref" && typeof value === "string" && value.startsWith("#/$defs/"))) continue;
    out[key] = DATA_KEYWORDS.has(key) ? value : loosened(value, depth - 1);
  }
  return out;
};

/**
 * The last resort for a request schema no annotation cut brings under 64 KiB (AWS MediaConvert's job
 * settings): its shared schemas become "any value" and its nesting is cut, deepest first, until it fits,
 * with a warning. The tool then accepts more than the description allows (the upstream still checks);
 * undefined when even its top level does not fit.
 */
export const loosenedToFit = (
  schema: JsonObject,
  field: string,
  location: string,
  warnings: Array<FieldProblem>,
): JsonObject | undefined => {
  const bare = applied(schema, STEPS[STEPS.length - 1]![1], 0);
  for (let depth = 16; depth >= 2; depth -= 2) {
    const cut = loosened(bare, depth) as JsonObject;
    if (leastSize(cut, HOPELESS) <= HOPELESS && size(cut) <= MAX_JSON_SCHEMA_BYTES) {
      warnings.push({
        path: location,
        message: `tool.${field} is over 64 KiB without its annotations: its shared schemas accept any value and it is cut to ${depth / 2} levels of nesting (the upstream checks the rest)`,
      });
      return cut;
    }
  }
  return undefined;
};
