import type { FieldProblem } from "@mcpsm/domain";
import type { ApiDescription, DescribedOperation, JsonObject } from "@mcpsm/domain/openapi-import";
import { MAX_JSON_SCHEMA_BYTES } from "@mcpsm/domain/schemas";

// A read description leaves the worker as JSON text, bounded in bytes before it is written. The schemas of a
// description may share sub-schemas (a DAG): written out, each shared node is repeated on every path, and a
// few kilobytes of `$ref`s can stand for gigabytes. Sizes are therefore computed first, once per distinct
// node, and only a description within its budgets is stringified.

/** Most bytes a read description may take as JSON (GitHub's 1,223 operations take 8.4 MiB). */
export const MAX_DESCRIPTION_BYTES = 32 * 1024 * 1024;

/** Characters JSON writes as an escape sequence. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\u2028\u2029\ud800-\udfff]/;

/**
 * JSON sizes of values, each distinct object measured once, in UTF-16 units (never more than the UTF-8 bytes):
 * a value measured within a budget is within it when written. Infinity for a cycle.
 */
export class JsonSizes {
  private readonly sizes = new Map<object, number>();
  private readonly open = new Set<object>();

  of(value: unknown): number {
    switch (typeof value) {
      case "string":
        return NEEDS_ESCAPE.test(value) ? JSON.stringify(value).length : value.length + 2;
      case "number":
      case "bigint":
        return String(value).length;
      case "boolean":
        return value ? 4 : 5;
      case "object":
        return value === null ? 4 : this.collection(value);
      default:
        return 0;
    }
  }

  private collection(value: object): number {
    const known = this.sizes.get(value);
    if (known !== undefined) return known;
    if (this.open.has(value)) return Number.POSITIVE_INFINITY;
    this.open.add(value);
    let size = 2;
    let members = 0;
    if (Array.isArray(value))
      for (const item of value) {
        size += item === undefined ? 4 : this.of(item);
        members++;
      }
    else
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        const item = (value as Record<string, unknown>)[key];
        if (item === undefined || typeof item === "function") continue;
        size += this.of(key) + 1 + this.of(item);
        members++;
      }
    size += Math.max(0, members - 1);
    this.open.delete(value);
    this.sizes.set(value, size);
    return size;
  }
}

const MAX_KIB = MAX_JSON_SCHEMA_BYTES / 1024;

/**
 * An operation whose schemas fit the limit every tool schema has (64 KiB): an argument or body schema over
 * it skips the operation (no tool could hold it), a success schema over it is dropped with a warning (the
 * tool then declares no outputSchema), as the domain would decide on the written-out schema.
 */
const boundedOperation = (
  operation: DescribedOperation,
  sizes: JsonSizes,
  location: string,
  warnings: Array<FieldProblem>,
): DescribedOperation => {
  const over = (schema: JsonObject | undefined) => schema !== undefined && sizes.of(schema) > MAX_JSON_SCHEMA_BYTES;
  const argumentsOver = operation.parameters.some((p) => (p.in === "path" || p.in === "query") && over(p.schema));
  const bodyOver = over(operation.requestBody?.schema);
  const problem =
    operation.problem ??
    (argumentsOver || bodyOver
      ? `its ${bodyOver ? "request body" : "parameter"} schema is larger than ${MAX_KIB} KiB once its $refs are inlined`
      : undefined);
  const parameters = operation.parameters.map((p) =>
    problem !== undefined || over(p.schema) ? { ...p, schema: {} } : p,
  );
  const requestBody =
    operation.requestBody === undefined || (problem === undefined && !bodyOver)
      ? operation.requestBody
      : { ...operation.requestBody, schema: undefined };
  let responseSchema = operation.responseSchema;
  if (problem !== undefined) responseSchema = undefined;
  else if (over(responseSchema)) {
    responseSchema = undefined;
    warnings.push({
      path: `${location}.responses`,
      message: `the success answer's schema must be at most ${MAX_KIB} KiB: the tool declares no outputSchema`,
    });
  }
  return { ...operation, parameters, requestBody, responseSchema, problem };
};

export type Transported =
  | { readonly ok: true; readonly json: string }
  | { readonly ok: false; readonly problems: Array<FieldProblem> };

const tooLarge = (root: string): Transported => ({
  ok: false,
  problems: [
    {
      path: root,
      message: `expands to more than ${MAX_DESCRIPTION_BYTES / 1024 / 1024} MiB once its $refs are resolved (the limit of a read description)`,
    },
  ],
});

/** The description as JSON text of at most MAX_DESCRIPTION_BYTES, or why it cannot be. */
export const transportDescription = (description: ApiDescription, root: string): Transported => {
  const sizes = new JsonSizes();
  // Measured as the reader made it: a description that expands past the budget is refused as a whole.
  const expanded = sizes.of(description);
  if (expanded > MAX_DESCRIPTION_BYTES) return tooLarge(root);
  const warnings = [...description.warnings];
  const operations = description.operations.map((operation) =>
    boundedOperation(operation, sizes, `${root}.paths['${operation.path}'].${operation.method}`, warnings),
  );
  const bounded: ApiDescription = { ...description, operations, warnings };
  return { ok: true, json: JSON.stringify(bounded) };
};
