import type { ToolRow } from "../storage/rows.js";

// docs/api-rules.md §15a: a path such as `/?Action=DescribeRegions&Version=2016-11-15` becomes a tool whose
// `queryArgsJSONSchema` holds `Action` and `Version` as `const` properties; the service sends them on every
// call, filling in those the caller leaves out (one the caller gives must equal the const: the schema says so).

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const NONE: Readonly<Record<string, unknown>> = Object.freeze({});

/** Worked out once per schema (a stored row's schema is never changed in place), not twice per call. */
const fixedBySchema = new WeakMap<object, Readonly<Record<string, unknown>>>();

/** The query values a tool always sends: its query properties with a scalar `const`, by name (read-only). */
export const fixedQueryValues = (tool: Pick<ToolRow, "queryArgsJSONSchema">): Readonly<Record<string, unknown>> => {
  const schema = tool.queryArgsJSONSchema;
  if (!isRecord(schema)) return NONE;
  const known = fixedBySchema.get(schema);
  if (known !== undefined) return known;
  const properties = schema.properties;
  const fixed: Record<string, unknown> = {};
  if (isRecord(properties))
    for (const [name, property] of Object.entries(properties))
      if (isRecord(property) && "const" in property && ["string", "number", "boolean"].includes(typeof property.const))
        fixed[name] = property.const;
  const frozen = Object.keys(fixed).length === 0 ? NONE : Object.freeze(fixed);
  fixedBySchema.set(schema, frozen);
  return frozen;
};

/**
 * MCP arguments with the tool's fixed query values filled in where the caller left them out, so that they
 * pass the schema even when it lists them as required.
 */
export const withFixedQuery = (tool: Pick<ToolRow, "queryArgsJSONSchema">, args: unknown): unknown => {
  const fixed = fixedQueryValues(tool);
  if (Object.keys(fixed).length === 0 || (args !== undefined && !isRecord(args))) return args;
  const given = args ?? {};
  const queryArgs = isRecord(given.queryArgs) ? given.queryArgs : given.queryArgs === undefined ? {} : undefined;
  return queryArgs === undefined ? given : { ...given, queryArgs: { ...fixed, ...queryArgs } };
};
