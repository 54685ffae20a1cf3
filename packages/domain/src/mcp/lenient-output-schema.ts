import type { JsonObject } from "../validation/text.js";

// docs/api-rules.md §15a: by default a tool declares as `outputSchema` a form of its answer schema that every
// real answer of the upstream satisfies, so that a slightly wrong description never turns a 2xx into an
// error. The form keeps the shape (types, properties, items, `$defs` and local `$ref`s) and drops what real
// answers break: `required`, closed objects, value constraints; `null` is allowed everywhere but at the root.

/** Keywords whose value is a map of subschemas. */
const SCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"] as const;
/** Keywords whose value is a list of subschemas (`oneOf` becomes `anyOf`: several branches now take null). */
const SCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"] as const;
/** Keywords whose value is one subschema (or, for draft-07 `items`, a list). */
const SCHEMA_ONES = ["items", "additionalItems"] as const;
/** Keywords dropped: what a real answer breaks when its description is slightly wrong. */
const DROPPED = new Set([
  "required",
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "propertyNames",
  "dependentRequired",
  "dependencies",
  "enum",
  "const",
  "pattern",
  "format",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
  "uniqueItems",
  "contains",
  "minContains",
  "maxContains",
  "minProperties",
  "maxProperties",
  "not",
  "if",
  "then",
  "else",
  "discriminator",
]);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A `type` value with integer widened to number and `null` added. */
const nullableType = (type: unknown): unknown => {
  const types = (typeof type === "string" ? [type] : Array.isArray(type) ? type : []).map((t) =>
    t === "integer" ? "number" : t,
  );
  if (types.length === 0) return type;
  return [...new Set([...types, "null"])];
};

const lenientNode = (node: unknown, root: boolean): unknown => {
  if (!isRecord(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED.has(key)) continue;
    if ((SCHEMA_MAPS as ReadonlyArray<string>).includes(key) && isRecord(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, lenientNode(sub, false)]));
    else if ((SCHEMA_LISTS as ReadonlyArray<string>).includes(key) && Array.isArray(value))
      out[key === "oneOf" ? "anyOf" : key] = value.map((sub) => lenientNode(sub, false));
    else if ((SCHEMA_ONES as ReadonlyArray<string>).includes(key))
      out[key] = Array.isArray(value) ? value.map((sub) => lenientNode(sub, false)) : lenientNode(value, false);
    else if (key === "type") out.type = root ? value : nullableType(value);
    else out[key] = value;
  }
  // `oneOf` and `anyOf` side by side: both now lists of alternatives, merged into one.
  if (Array.isArray(node.oneOf) && Array.isArray(node.anyOf))
    out.allOf = [
      ...(Array.isArray(out.allOf) ? out.allOf : []),
      { anyOf: node.oneOf.map((sub) => lenientNode(sub, false)) },
      { anyOf: node.anyOf.map((sub) => lenientNode(sub, false)) },
    ];
  if (Array.isArray(node.oneOf) && Array.isArray(node.anyOf)) delete out.anyOf;
  return out;
};

/**
 * The lenient form of an answer schema: `required` dropped, `null` allowed (at the root only when
 * `nullableRoot`: a root that becomes `structuredContent` is always an object), extra properties allowed,
 * integer widened to number, value constraints (`enum`, `const`, `pattern`, lengths, bounds, `not`,
 * conditionals) dropped, `oneOf` read as `anyOf`; through nested schemas and `$defs`, whose local `$ref`s
 * stay valid.
 */
export const lenientOutputSchema = (schema: JsonObject, nullableRoot = false): JsonObject =>
  lenientNode(schema, !nullableRoot) as JsonObject;
