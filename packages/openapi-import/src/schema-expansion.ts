import type { JsonObject } from "@mcpsm/domain/openapi-import";
import { isObject, resolvePointer } from "./document-path.js";

// Turns an OpenAPI schema into a self-contained JSON Schema 2020-12 (the dialect tool schemas use): every
// local $ref inlined, a reference back into a schema being expanded (a cycle) cut to a stub, and OpenAPI 3.0's
// own keywords rewritten (`nullable`, boolean `exclusiveMinimum`/`exclusiveMaximum`, `example`, ...).

/** Raised when one expansion grows past the budget (a DAG of refs can grow exponentially when inlined). */
export class SchemaTooLarge extends Error {}

const MAX_NODES = 20_000;

const SCHEMA_MAP_KEYWORDS = new Set(["properties", "patternProperties", "dependentSchemas"]);
const SCHEMA_LIST_KEYWORDS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
const SCHEMA_KEYWORDS = new Set([
  "additionalProperties",
  "items",
  "additionalItems",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems",
]);
/** OpenAPI-only or document-only keywords with no meaning for argument validation. */
const DROPPED = new Set([
  "discriminator",
  "xml",
  "externalDocs",
  "example",
  "nullable",
  "$schema",
  "$id",
  "$anchor",
  "$dynamicAnchor",
  "$dynamicRef",
  "$defs",
  "definitions",
  "$comment",
]);

interface Expansion {
  readonly schema: JsonObject;
  /** A cycle was cut inside: the result depends on the path it was reached by, so it is not cached. */
  readonly cut: boolean;
}

/** Expands the schemas of one document; results of refs without cycles are shared between calls. */
export class SchemaExpander {
  private readonly cache = new Map<string, JsonObject>();
  private nodes = 0;

  constructor(
    private readonly document: unknown,
    /** OpenAPI 3.0 (and converted 2.0): its schema dialect needs rewriting. */
    private readonly openapi30: boolean,
  ) {}

  /** The JSON Schema of `node`; throws SchemaTooLarge past the budget. */
  expand(node: unknown): JsonObject {
    this.nodes = 0;
    return this.schema(node, []).schema;
  }

  private count() {
    if (++this.nodes > MAX_NODES) throw new SchemaTooLarge();
  }

  private schema(node: unknown, stack: ReadonlyArray<string>): Expansion {
    this.count();
    if (typeof node === "boolean") return { schema: node ? {} : { not: {} }, cut: false };
    if (!isObject(node)) return { schema: {}, cut: false };
    const ref = node.$ref;
    if (typeof ref === "string") return this.reference(node, ref, stack);
    let cut = false;
    const out: Record<string, unknown> = {};
    const sub = (value: unknown) => {
      const expanded = this.schema(value, stack);
      cut ||= expanded.cut;
      return expanded.schema;
    };
    for (const [key, value] of Object.entries(node)) {
      if (key.startsWith("x-") || DROPPED.has(key)) continue;
      if (SCHEMA_MAP_KEYWORDS.has(key) && isObject(value))
        out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, sub(s)]));
      else if (SCHEMA_LIST_KEYWORDS.has(key) && Array.isArray(value)) out[key] = value.map(sub);
      else if (key === "items" && Array.isArray(value)) out.prefixItems = value.map(sub);
      else if (SCHEMA_KEYWORDS.has(key) && (isObject(value) || typeof value === "boolean")) out[key] = sub(value);
      else if (key === "required") {
        // `required: true` on a property (a common 2.0 slip) is not JSON Schema: drop it.
        if (Array.isArray(value) && value.every((v) => typeof v === "string") && value.length > 0) out.required = value;
      } else out[key] = value;
    }
    if (this.openapi30) this.rewrite30(node, out);
    if (out.type === "file") {
      out.type = "string";
      out.format = "binary";
    }
    return { schema: out, cut };
  }

  /** OpenAPI 3.0's dialect → JSON Schema 2020-12. */
  private rewrite30(node: Record<string, unknown>, out: Record<string, unknown>) {
    if (node.nullable === true) {
      if (typeof out.type === "string") out.type = [out.type, "null"];
      if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    }
    for (const [flag, bound] of [
      ["exclusiveMinimum", "minimum"],
      ["exclusiveMaximum", "maximum"],
    ] as const) {
      if (typeof node[flag] !== "boolean") continue;
      if (node[flag] === true && typeof node[bound] === "number") {
        out[flag] = node[bound];
        delete out[bound];
      } else delete out[flag];
    }
  }

  private reference(node: Record<string, unknown>, ref: string, stack: ReadonlyArray<string>): Expansion {
    const siblings = Object.entries(node).filter(
      ([key]) => key !== "$ref" && !key.startsWith("x-") && !DROPPED.has(key),
    );
    let target: Expansion;
    if (!ref.startsWith("#")) target = { schema: { $comment: `remote $ref '${ref}' is not fetched` }, cut: false };
    else if (stack.includes(ref)) {
      const resolved = resolvePointer(this.document, ref);
      const type = isObject(resolved) ? resolved.type : undefined;
      target = {
        schema: {
          ...(typeof type === "string" && type !== "file" ? { type } : {}),
          $comment: `circular reference to ${ref}: not expanded further`,
        },
        cut: true,
      };
    } else {
      const cached = this.cache.get(ref);
      if (cached !== undefined) {
        this.count();
        target = { schema: cached, cut: false };
      } else {
        target = this.schema(resolvePointer(this.document, ref), [...stack, ref]);
        if (!target.cut) this.cache.set(ref, target.schema);
      }
    }
    if (siblings.length === 0) return target;
    // OpenAPI 3.1 lets a $ref have siblings: both apply. Plain annotations merge; anything else composes.
    const rest = this.schema(Object.fromEntries(siblings), stack);
    const annotationsOnly = siblings.every(([key]) => key === "description" || key === "title" || key === "summary");
    return {
      schema: annotationsOnly ? { ...target.schema, ...rest.schema } : { allOf: [target.schema], ...rest.schema },
      cut: target.cut || rest.cut,
    };
  }
}
