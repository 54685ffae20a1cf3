// A tool's argument schemas are each self-contained: a shared schema lives in the schema's own `$defs` and is
// referred to by a local `$ref` such as `#/$defs/Pet` (docs/api-rules.md §15a). A local reference resolves
// against the document's root, so a schema placed inside another (the part schemas under `properties` of the
// MCP `inputSchema`, an answer under `properties.result` of the `outputSchema`) has its references rebased.

/** Keywords whose values are data, not schema: a `$ref` key inside them is not a reference. */
const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples", "example"]);

const rebase = (node: unknown, pointer: string): unknown => {
  if (Array.isArray(node)) return node.map((item) => rebase(item, pointer));
  if (typeof node !== "object" || node === null) return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      DATA_KEYWORDS.has(key)
        ? value
        : key === "$ref" && typeof value === "string" && value.startsWith("#/")
          ? `#${pointer}${value.slice(1)}`
          : rebase(value, pointer),
    ]),
  );
};

/** Whether a schema holds a local reference anywhere (outside data keywords). */
const hasLocalRef = (node: unknown): boolean => {
  if (Array.isArray(node)) return node.some(hasLocalRef);
  if (typeof node !== "object" || node === null) return false;
  return Object.entries(node).some(([key, value]) =>
    DATA_KEYWORDS.has(key)
      ? false
      : key === "$ref"
        ? typeof value === "string" && value.startsWith("#")
        : hasLocalRef(value),
  );
};

/**
 * `schema` as it reads when placed at the JSON pointer `pointer` (`/properties/bodyArgs`) of another schema:
 * its local references (`#/$defs/Pet`) point into it there (`#/properties/bodyArgs/$defs/Pet`). A schema
 * without local references is returned as is.
 */
export const nestedSchema = <S>(schema: S, pointer: string): S =>
  hasLocalRef(schema) ? (rebase(schema, pointer) as S) : schema;
