import type { CompiledFilter } from "../filter/compile-filter.js";

/** A JSON Schema as stored (a JSON object). `{}` is "anything". */
export type JsonSchema = Record<string, unknown>;

/** The permissive object schema: what an `outputSchema` is when the result's shape cannot be derived. */
export const PERMISSIVE_OUTPUT_SCHEMA: JsonSchema = { type: "object" };

type Node = { readonly type: string; readonly [key: string]: unknown };

const ANY: JsonSchema = {};
const NULL: JsonSchema = { type: "null" };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isNode = (v: unknown): v is Node => isObject(v) && typeof v.type === "string";
const isAny = (s: JsonSchema): boolean => Object.keys(s).length === 0;

/** The types a schema names at its top (empty when it names none). */
const typesOf = (s: JsonSchema): ReadonlyArray<string> =>
  typeof s.type === "string" ? [s.type] : Array.isArray(s.type) ? (s.type as Array<string>) : [];

const nullable = (s: JsonSchema): JsonSchema => (isAny(s) || typesOf(s).includes("null") ? s : { anyOf: [s, NULL] });

/** The schema without its `null` alternative (what a projection keeps: it drops null results). */
const nonNull = (s: JsonSchema): JsonSchema => {
  if (Array.isArray(s.anyOf) && s.anyOf.length === 2 && s.anyOf.some((a) => isObject(a) && a.type === "null"))
    return s.anyOf.find((a) => !(isObject(a) && a.type === "null")) as JsonSchema;
  return s;
};

const isNullable = (s: JsonSchema): boolean =>
  typesOf(s).includes("null") || (Array.isArray(s.anyOf) && s.anyOf.some((a) => isObject(a) && a.type === "null"));

/** Keeps the result's nullability from the step before: a field of null is null. */
const after = (left: JsonSchema, right: (s: JsonSchema) => JsonSchema): JsonSchema =>
  isAny(left) ? ANY : isNullable(left) ? nullable(right(nonNull(left))) : right(left);

const field = (s: JsonSchema, name: string): JsonSchema => {
  if (!typesOf(s).includes("object") || typesOf(s).length !== 1) return ANY;
  const properties = isObject(s.properties) ? s.properties : {};
  const property = properties[name];
  const required = Array.isArray(s.required) && s.required.includes(name);
  if (isObject(property)) return required ? property : nullable(property);
  if (s.additionalProperties === false) return NULL;
  return isObject(s.additionalProperties) ? nullable(s.additionalProperties) : ANY;
};

/** The item schema of an array schema (undefined when `s` is not surely an array). */
const itemsOf = (s: JsonSchema): JsonSchema | undefined =>
  typesOf(s).length === 1 && typesOf(s)[0] === "array" ? (isObject(s.items) ? s.items : ANY) : undefined;

const arrayOf = (items: JsonSchema): JsonSchema => ({ type: "array", items });

const projection = (left: JsonSchema, right: Node | undefined): JsonSchema => {
  const items = itemsOf(nonNull(left));
  if (items === undefined) return ANY;
  const projected = arrayOf(right === undefined ? nonNull(items) : nonNull(derive(right, items)));
  return isNullable(left) ? nullable(projected) : projected;
};

const FUNCTION_RESULTS: Record<string, JsonSchema> = {
  length: { type: "integer" },
  keys: { type: "array", items: { type: "string" } },
  to_string: { type: "string" },
  type: { type: "string" },
  join: { type: "string" },
  lower: { type: "string" },
  upper: { type: "string" },
  contains: { type: "boolean" },
  starts_with: { type: "boolean" },
  ends_with: { type: "boolean" },
};

/** The schema of `node`'s result on a value of schema `s`. */
const derive = (node: Node, s: JsonSchema): JsonSchema => {
  const child = (key: string): Node | undefined => (isNode(node[key]) ? (node[key] as Node) : undefined);
  const d = (key: string, on: JsonSchema): JsonSchema => {
    const c = child(key);
    return c === undefined ? on : derive(c, on);
  };
  switch (node.type) {
    case "Current":
    case "Identity":
      return s;
    case "Field":
      return field(s, String(node.name));
    case "Literal":
      return { const: node.value };
    case "Subexpression":
    case "Pipe":
      return after(d("left", s), (l) => d("right", l));
    case "IndexExpression": {
      const left = d("left", s);
      const right = child("right");
      if (right?.type === "Index")
        return after(left, (l) => (itemsOf(l) === undefined ? ANY : nullable(itemsOf(l) as JsonSchema)));
      if (right?.type === "Slice")
        return after(left, (l) => (itemsOf(l) === undefined ? ANY : arrayOf(itemsOf(l) as JsonSchema)));
      return ANY;
    }
    case "Projection":
      return projection(d("left", s), child("right"));
    case "FilterProjection":
      return projection(d("left", s), child("right"));
    case "Flatten": {
      const inner = d("child", s);
      return after(inner, (l) => {
        const items = itemsOf(l);
        if (items === undefined) return ANY;
        const nested = itemsOf(items);
        return nested !== undefined
          ? arrayOf(nested)
          : typesOf(items).includes("array") || isAny(items)
            ? arrayOf(ANY)
            : l;
      });
    }
    case "ValueProjection":
      return after(d("left", s), (l) => (typesOf(l).includes("object") ? arrayOf(ANY) : ANY));
    case "MultiSelectHash": {
      const pairs = (Array.isArray(node.children) ? node.children : []).filter(isNode);
      const properties: Record<string, JsonSchema> = {};
      for (const pair of pairs) properties[String(pair.name)] = isNode(pair.value) ? derive(pair.value, s) : ANY;
      return { type: "object", properties, required: Object.keys(properties) };
    }
    case "MultiSelectList": {
      const items = (Array.isArray(node.children) ? node.children : []).filter(isNode).map((c: Node) => derive(c, s));
      return {
        type: "array",
        items: items.some(isAny) ? ANY : { anyOf: items },
        minItems: items.length,
        maxItems: items.length,
      };
    }
    case "Comparator":
    case "NotExpression":
      return { type: "boolean" };
    case "Function": {
      const name = String(node.name);
      const known = FUNCTION_RESULTS[name];
      if (known !== undefined) return known;
      const args = (Array.isArray(node.children) ? node.children : []).filter(isNode);
      if ((name === "sort" || name === "reverse" || name === "sort_by") && args[0] !== undefined) {
        const arg = derive(args[0], s);
        return itemsOf(arg) !== undefined ? arg : ANY;
      }
      return ANY;
    }
    default:
      return ANY;
  }
};

/** The schema of the filtered result itself (before the wrapping `structuredContent` needs). */
export const deriveResultSchema = (
  respBodyJSONSchema: JsonSchema | null,
  filter: CompiledFilter | undefined,
): JsonSchema => {
  if (respBodyJSONSchema === null) return ANY;
  if (filter === undefined) return respBodyJSONSchema;
  if (filter.language !== "jmespath" || filter.ast === undefined) return ANY;
  return derive(filter.ast as unknown as Node, respBodyJSONSchema);
};

/**
 * The `outputSchema` of a tool whose answer goes through `filter`: the filtered result's schema where the
 * expression allows (fields, projections, slices, multiselect lists and hashes), in the shape
 * `structuredContent` takes (`structuredContentOf`): an object schema as is, a surely non-object result
 * wrapped as `{result: …}`, and the permissive `{type: "object"}` when the result's type is not known.
 */
export const deriveOutputSchema = (
  respBodyJSONSchema: JsonSchema | null,
  filter: CompiledFilter | undefined,
): JsonSchema => {
  const result = deriveResultSchema(respBodyJSONSchema, filter);
  const types = typesOf(result);
  if (types.length === 1 && types[0] === "object" && result.anyOf === undefined) return result;
  // A nullable non-object (`anyOf: [array, null]`) is wrapped too: `null` becomes `{result: null}`.
  const alternatives = Array.isArray(result.anyOf) ? (result.anyOf as Array<JsonSchema>).map(typesOf) : [];
  const surelyNotObject =
    (types.length > 0 && !types.includes("object")) ||
    (alternatives.length > 0 && alternatives.every((t) => t.length > 0 && !t.includes("object"))) ||
    ("const" in result && (typeof result.const !== "object" || result.const === null || Array.isArray(result.const)));
  if (surelyNotObject) return { type: "object", properties: { result }, required: ["result"] };
  return PERMISSIVE_OUTPUT_SCHEMA;
};

/** The value as `structuredContent` carries it (as the MCP runtime wraps it): an object as is, else `{result}`. */
export const structuredContentOf = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : { result: value };
