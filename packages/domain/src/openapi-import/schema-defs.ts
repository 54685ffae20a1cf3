import type { JsonObject } from "../validation/text.js";

// The reader gives each schema of a description in compact form: what it shares (and what recurses) sits in
// its own `$defs`, referred to by `#/$defs/<name>` (docs/api-rules.md §15a). A tool schema assembled from
// several of them (the parameters of an operation as one object) gathers their `$defs` at its root, where
// those references resolve. Names are the description's (unique within it), so equal names are equal schemas.

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `schema` with the `$defs` of its properties moved to its own `$defs`. */
export const withHoistedDefs = (schema: JsonObject): JsonObject => {
  const properties = isObject(schema.properties) ? schema.properties : undefined;
  if (properties === undefined || !Object.values(properties).some((p) => isObject(p) && "$defs" in p)) return schema;
  const defs: Record<string, unknown> = isObject(schema.$defs) ? { ...schema.$defs } : {};
  const moved = Object.fromEntries(
    Object.entries(properties).map(([name, property]) => {
      if (!isObject(property) || !isObject(property.$defs)) return [name, property];
      const { $defs, ...rest } = property;
      Object.assign(defs, $defs);
      return [name, rest];
    }),
  );
  return { ...schema, properties: moved, $defs: defs };
};
