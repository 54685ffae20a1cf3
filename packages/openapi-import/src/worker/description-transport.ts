import type { FieldProblem } from "@mcpsm/domain";
import type { ApiDescription, DescribedOperation, JsonObject } from "@mcpsm/domain/openapi-import";
import { MAX_JSON_SCHEMA_BYTES } from "@mcpsm/domain/schemas";

// A read description leaves the worker structured-cloned (shared nodes stay shared), bounded first by what it
// would take as JSON: the schemas of a description may share sub-schemas (a DAG), and whoever writes one out
// (the domain's schema checks, an answer, the store) repeats each shared node on every path, so a few
// kilobytes of `$ref`s could stand for gigabytes. Sizes are computed once per distinct node.

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

/**
 * Most bytes one argument or body schema of a read description may take as JSON. Shared schemas reach the
 * domain compact (each held once in the tool schema's `$defs`), and the domain fits them to the 64 KiB limit
 * of a tool schema (cutting annotations, then loosening: docs/api-rules.md §15a); this cap only keeps one
 * pathological schema from filling the transport.
 */
export const MAX_TRANSPORTED_SCHEMA_BYTES = 32 * MAX_JSON_SCHEMA_BYTES;

/**
 * Most bytes a success answer's schema may take in transport. The domain can shrink one by cutting its
 * annotations but never loosens it (it drops it instead), so a schema this far over 64 KiB is dropped here,
 * with the same warning: Stripe's description has ~300 of ~600 KiB, which would otherwise fill the transport.
 */
export const MAX_TRANSPORTED_RESPONSE_BYTES = 4 * MAX_JSON_SCHEMA_BYTES;

const kib = (bytes: number) => bytes / 1024;

/**
 * An operation whose schemas fit the transport's caps: an argument or body schema over its cap skips the
 * operation, a success schema over its cap is dropped with a warning (the tool then declares no outputSchema).
 */
const boundedOperation = (
  operation: DescribedOperation,
  sizes: JsonSizes,
  location: string,
  warnings: Array<FieldProblem>,
): DescribedOperation => {
  const over = (schema: JsonObject | undefined, cap = MAX_TRANSPORTED_SCHEMA_BYTES) =>
    schema !== undefined && sizes.of(schema) > cap;
  const argumentsOver = operation.parameters.some((p) => (p.in === "path" || p.in === "query") && over(p.schema));
  const bodyOver = over(operation.requestBody?.schema);
  const problem =
    operation.problem ??
    (argumentsOver || bodyOver
      ? `its ${bodyOver ? "request body" : "parameter"} schema is larger than ${kib(MAX_TRANSPORTED_SCHEMA_BYTES)} KiB even with its shared schemas held once`
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
  else if (over(responseSchema, MAX_TRANSPORTED_RESPONSE_BYTES)) {
    responseSchema = undefined;
    warnings.push({
      path: `${location}.responses`,
      message: `the success answer's schema must be at most ${kib(MAX_JSON_SCHEMA_BYTES)} KiB: the tool declares no outputSchema`,
    });
  }
  return { ...operation, parameters, requestBody, responseSchema, problem };
};

export type Transported =
  | { readonly ok: true; readonly description: ApiDescription }
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

/** The description within its caps, at most MAX_DESCRIPTION_BYTES once written as JSON, or why it cannot be. */
export const boundedDescription = (description: ApiDescription, root: string): Transported => {
  const sizes = new JsonSizes();
  const warnings = [...description.warnings];
  const operations = description.operations.map((operation) =>
    boundedOperation(operation, sizes, `${root}.paths['${operation.path}'].${operation.method}`, warnings),
  );
  const bounded: ApiDescription = { ...description, operations, warnings };
  // Measured as it would be written, every shared node on every path: past the budget it is refused whole.
  if (sizes.of(bounded) > MAX_DESCRIPTION_BYTES) return tooLarge(root);
  return { ok: true, description: bounded };
};
