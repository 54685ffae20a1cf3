import type { JsonObject } from "@mcpsm/domain/openapi-import";
import { isObject, resolvePointer } from "./document-path.js";

// Turns an OpenAPI schema into a self-contained JSON Schema 2020-12 (the dialect tool schemas use), compact
// (docs/api-rules.md §15a): a schema the result uses once is inlined where it is used; one it uses more than
// once, and every recursive one, becomes an entry of the result's own `$defs`, referred to by a local
// `$ref: "#/$defs/<name>"`, so the result holds each shared schema once and its size grows with the distinct
// schemas it uses, not with the paths that reach them. OpenAPI 3.0's own keywords are rewritten (`nullable`,
// boolean `exclusiveMinimum`/`exclusiveMaximum`, `example`, ...).

/** Raised when one result grows past the budget (a guard: compact results grow linearly with the document). */
export class SchemaTooLarge extends Error {}

const MAX_NODES = 200_000;

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
  "$recursiveAnchor",
  "$recursiveRef",
  "$defs",
  "definitions",
  "$comment",
]);

/** Where a translated schema refers to a document schema: replaced by its inlined body or a `$defs` `$ref`. */
const REF = Symbol("ref");
type Placeholder = { [REF]: string };
const placeholderOf = (node: unknown): string | undefined =>
  typeof node === "object" && node !== null && REF in node ? (node as Placeholder)[REF] : undefined;

/** A document schema translated once, its references left as placeholders, and the refs it uses. */
interface Translated {
  readonly body: unknown;
  readonly uses: ReadonlyArray<string>;
}

/** Expands the schemas of one document; each referenced schema is translated once per document. */
export class SchemaExpander {
  private readonly translated = new Map<string, Translated>();
  private readonly names = new Map<string, string>();
  private readonly namesTaken = new Set<string>();
  private readonly cycles = new Map<string, boolean>();
  private nodes = 0;

  constructor(
    private readonly document: unknown,
    /** OpenAPI 3.0 (and converted 2.0): its schema dialect needs rewriting. */
    private readonly openapi30: boolean,
  ) {}

  /** The compact JSON Schema of `node` (with `$defs` when it shares or recurses); throws SchemaTooLarge. */
  expand(node: unknown): JsonObject {
    const uses: Array<string> = [];
    const root = this.translate(node, uses);
    // How often each reachable schema is used (the root's uses, and each reachable schema's own, once).
    const counts = new Map<string, number>();
    const reachable: Array<string> = [];
    const queue = [...uses];
    for (const ref of uses) counts.set(ref, (counts.get(ref) ?? 0) + 1);
    const seen = new Set<string>();
    while (queue.length > 0) {
      const ref = queue.shift()!;
      if (seen.has(ref)) continue;
      seen.add(ref);
      reachable.push(ref);
      for (const inner of this.target(ref).uses) {
        counts.set(inner, (counts.get(inner) ?? 0) + 1);
        queue.push(inner);
      }
    }
    const shared = new Set(reachable.filter((ref) => (counts.get(ref) ?? 0) > 1 || this.recursive(ref)));
    this.nodes = 0;
    // A root that is itself a reference shows its schema (its type, its properties) at the top.
    const top = placeholderOf(root);
    const body = this.materialise(top === undefined ? root : this.target(top).body, shared);
    if (shared.size === 0) return body as JsonObject;
    const defs: Record<string, unknown> = {};
    for (const ref of reachable)
      if (shared.has(ref)) defs[this.nameOf(ref)] = this.materialise(this.target(ref).body, shared);
    if (!isObject(body)) return { $defs: defs };
    return { ...body, $defs: defs };
  }

  /** Whether `ref` reaches itself (known once per document). */
  private recursive(ref: string): boolean {
    let known = this.cycles.get(ref);
    if (known === undefined) {
      known = this.reachesItself(ref);
      this.cycles.set(ref, known);
    }
    return known;
  }

  private reachesItself(ref: string): boolean {
    const seen = new Set<string>();
    const stack = [...this.target(ref).uses];
    while (stack.length > 0) {
      const next = stack.pop()!;
      if (next === ref) return true;
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...this.target(next).uses);
    }
    return false;
  }

  /** The `$defs` name of a ref: its last pointer segment, made unique within the document. */
  private nameOf(ref: string): string {
    const known = this.names.get(ref);
    if (known !== undefined) return known;
    const last = decodeURIComponent(ref.slice(ref.lastIndexOf("/") + 1))
      .replace(/~1/g, "/")
      .replace(/~0/g, "~");
    const base = last.replace(/[^A-Za-z0-9_.-]/g, "_") || "schema";
    let name = base;
    for (let n = 2; this.namesTaken.has(name); n++) name = `${base}_${n}`;
    this.namesTaken.add(name);
    this.names.set(ref, name);
    return name;
  }

  private target(ref: string): Translated {
    let known = this.translated.get(ref);
    if (known === undefined) {
      // Placed first so that a cycle meets it while it is being translated.
      this.translated.set(ref, { body: {}, uses: [] });
      const uses: Array<string> = [];
      const body = this.translate(resolvePointer(this.document, ref), uses);
      known = { body, uses };
      this.translated.set(ref, known);
    }
    return known;
  }

  /** Replaces placeholders: a shared schema by its `$ref`, any other by its materialised body. */
  private materialise(node: unknown, shared: ReadonlySet<string>): unknown {
    if (++this.nodes > MAX_NODES) throw new SchemaTooLarge();
    const ref = placeholderOf(node);
    if (ref !== undefined)
      return shared.has(ref)
        ? { $ref: `#/$defs/${encodeURIComponent(this.nameOf(ref))}` }
        : this.materialise(this.target(ref).body, shared);
    if (Array.isArray(node)) return node.map((n) => this.materialise(n, shared));
    if (!isObject(node)) return node;
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, this.materialise(value, shared)]));
  }

  /** One schema of the document in the tool dialect; its local refs become placeholders listed in `uses`. */
  private translate(node: unknown, uses: Array<string>): unknown {
    if (typeof node === "boolean") return node ? {} : { not: {} };
    if (!isObject(node)) return {};
    const ref = node.$ref;
    if (typeof ref === "string") return this.reference(node, ref, uses);
    const out: Record<string, unknown> = {};
    const sub = (value: unknown) => this.translate(value, uses);
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
    // 3.0's boolean exclusive bounds also turn up in 3.1 documents (OpenAI's): read them the 3.0 way.
    else this.exclusiveBounds(node, out);
    if (out.type === "file") {
      out.type = "string";
      out.format = "binary";
    }
    return out;
  }

  /** OpenAPI 3.0's dialect → JSON Schema 2020-12. */
  private rewrite30(node: Record<string, unknown>, out: Record<string, unknown>) {
    if (node.nullable === true) {
      if (typeof out.type === "string") out.type = [out.type, "null"];
      if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    }
    this.exclusiveBounds(node, out);
  }

  /** Boolean `exclusiveMinimum`/`exclusiveMaximum` (OpenAPI 3.0) → the numeric form of JSON Schema 2020-12. */
  private exclusiveBounds(node: Record<string, unknown>, out: Record<string, unknown>) {
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

  private reference(node: Record<string, unknown>, ref: string, uses: Array<string>): unknown {
    const siblings = Object.entries(node).filter(
      ([key]) => key !== "$ref" && !key.startsWith("x-") && !DROPPED.has(key),
    );
    let target: unknown;
    if (!ref.startsWith("#")) target = { $comment: `remote $ref '${ref}' is not fetched` };
    else if (!this.translated.has(ref) && resolvePointer(this.document, ref) === undefined) target = {};
    else {
      uses.push(ref);
      target = { [REF]: ref } satisfies Placeholder;
    }
    if (siblings.length === 0) return target;
    // OpenAPI 3.1 lets a $ref have siblings: both apply. The referenced schema is wrapped so that its
    // keywords and the siblings' cannot overwrite each other.
    const rest = this.translate(Object.fromEntries(siblings), uses) as Record<string, unknown>;
    return { allOf: [target], ...rest };
  }
}
