import type { FieldProblem } from "@mcpsm/domain";
import { createRequire } from "node:module";

/**
 * The YAML parser, loaded with the first YAML description rather than with the service (most descriptions
 * arrive as JSON). yaml is CommonJS under Node, so `require` gives the module `import` would, synchronously.
 */
const yaml = () => createRequire(import.meta.url)("yaml") as typeof import("yaml");

/** Largest accepted description (docs/api-rules.md §15), measured as its text, or as compact JSON when sent as an object. */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;

/** Most YAML aliases expanded in one document: a "billion laughs" document cannot blow up memory. */
const MAX_YAML_ALIASES = 10_000;

export type ReadText =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problems: Array<FieldProblem> };

const errorText = (error: unknown) =>
  error instanceof RangeError ? "it is nested too deeply" : error instanceof Error ? error.message : String(error);

const tooLarge = (root: string, bytes: number): ReadText => ({
  ok: false,
  problems: [
    {
      path: root,
      message: `is ${(bytes / 1024 / 1024).toFixed(1)} MiB; a description may be at most ${MAX_DOCUMENT_BYTES / 1024 / 1024} MiB`,
    },
  ],
});

/** The document as a value: an object as sent, or the parse of a JSON or YAML text; the size limit applies. */
export const readDocumentValue = (document: unknown, root: string): ReadText => {
  if (typeof document !== "string") {
    if (typeof document !== "object" || document === null || Array.isArray(document))
      return {
        ok: false,
        problems: [{ path: root, message: "must be an OpenAPI description: an object, or its JSON or YAML text" }],
      };
    let bytes: number;
    try {
      bytes = Buffer.byteLength(JSON.stringify(document), "utf8");
    } catch (error) {
      // JSON.stringify stops with a RangeError on nesting deeper than the stack allows (or on a cycle).
      return { ok: false, problems: [{ path: root, message: `cannot be read: ${errorText(error)}` }] };
    }
    return bytes > MAX_DOCUMENT_BYTES ? tooLarge(root, bytes) : { ok: true, value: document };
  }
  const bytes = Buffer.byteLength(document, "utf8");
  if (bytes > MAX_DOCUMENT_BYTES) return tooLarge(root, bytes);
  if (document.trim() === "") return { ok: false, problems: [{ path: root, message: "is empty" }] };
  if (/^\s*[{[]/.test(document))
    try {
      return { ok: true, value: JSON.parse(document) };
    } catch {
      // Not JSON after all: YAML (a superset) says where it breaks.
    }
  let parsed: ReturnType<typeof import("yaml").parseDocument>;
  try {
    parsed = yaml().parseDocument(document, { prettyErrors: true, uniqueKeys: true, strict: true });
  } catch (error) {
    return { ok: false, problems: [{ path: root, message: `cannot be read as YAML: ${errorText(error)}` }] };
  }
  if (parsed.errors.length > 0)
    return {
      ok: false,
      // With prettyErrors, the first line of each message ends with "at line L, column C:".
      problems: parsed.errors.slice(0, 50).map((error) => ({
        path: root,
        message: `is not valid JSON or YAML: ${error.message.split("\n")[0]?.replace(/:$/, "")}`,
      })),
    };
  try {
    return { ok: true, value: parsed.toJS({ maxAliasCount: MAX_YAML_ALIASES }) };
  } catch (error) {
    return {
      ok: false,
      problems: [{ path: root, message: `cannot be read as YAML: ${errorText(error)}` }],
    };
  }
};
