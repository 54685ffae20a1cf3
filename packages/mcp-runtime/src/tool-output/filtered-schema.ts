import { lenientOutputSchema } from "@mcpsm/domain/mcp";
import type { ToolRow } from "@mcpsm/domain/storage";
import {
  type CompiledFilter,
  type CompileOutcome,
  deriveOutputSchema,
  deriveResultSchema,
  PERMISSIVE_OUTPUT_SCHEMA,
  prepareStoredFilter,
} from "@mcpsm/response-shaping";

// A tool's response filter (docs/api-rules.md §19) as the runtime uses it: compiled once per stored row
// (a revision is a new row in both stores), and the schemas that follow it.

type JsonObject = Record<string, unknown>;

const prepared = new WeakMap<ToolRow, CompileOutcome>();

/** The tool's filter ready to run; undefined when it has none. A stored filter that no longer compiles says why. */
export const filterOf = (tool: ToolRow): CompileOutcome | undefined => {
  if (tool.responseFilter === null) return undefined;
  let outcome = prepared.get(tool);
  if (outcome === undefined) {
    outcome = prepareStoredFilter(tool.responseFilter);
    prepared.set(tool, outcome);
  }
  return outcome;
};

/** The schema of the upstream's answer as the tool declares it (lenient unless EXACT); null when unknown. */
export const answerSchemaOf = (tool: Pick<ToolRow, "respBodyJSONSchema" | "outputSchemaMode">): JsonObject | null => {
  const schema = tool.respBodyJSONSchema;
  if (schema === null) return null;
  return tool.outputSchemaMode === "EXACT" ? schema : lenientOutputSchema(schema);
};

const resultSchemas = new WeakMap<
  ToolRow,
  { readonly filter: CompiledFilter | undefined; readonly schema: JsonObject }
>();

/**
 * The schema of the filtered value (before any `{result: …}` wrapping): what a cut must keep valid. Made
 * once per row and filter (the lenient form copies the whole answer schema), not on every call.
 */
export const resultSchemaOf = (tool: ToolRow, filter: CompiledFilter | undefined): JsonObject => {
  const known = resultSchemas.get(tool);
  if (known !== undefined && known.filter === filter) return known.schema;
  const schema = deriveResultSchema(answerSchemaOf(tool), filter);
  resultSchemas.set(tool, { filter, schema });
  return schema;
};

/**
 * The `outputSchema` of a tool with a filter: derived through the expression from its answer schema where
 * the expression allows, else the permissive object schema. The answer schema's `$defs` (and `definitions`)
 * go to the new root, so the local `$ref`s of a derived part still resolve.
 */
export const filteredOutputSchema = (
  tool: Pick<ToolRow, "respBodyJSONSchema" | "outputSchemaMode">,
  filter: CompiledFilter | undefined,
): JsonObject => {
  if (filter === undefined) return PERMISSIVE_OUTPUT_SCHEMA;
  const base = answerSchemaOf(tool);
  const derived = deriveOutputSchema(base, filter);
  if (base === null || derived === PERMISSIVE_OUTPUT_SCHEMA || !JSON.stringify(derived).includes('"$ref"'))
    return derived;
  const { $defs, definitions } = base;
  return {
    ...derived,
    ...($defs === undefined ? {} : { $defs }),
    ...(definitions === undefined ? {} : { definitions }),
  };
};
