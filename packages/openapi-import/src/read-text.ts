import type { FieldProblem } from "@mcpsm/domain";
import { sharedNodesProblem } from "./shared-nodes.js";
import { readYaml } from "./yaml-text.js";

/** Largest accepted description (docs/api-rules.md §15), measured as its text, or as compact JSON when sent as an object. */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;

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
    // Sent as an object by a caller in this process, it may share nodes: counted before it is stringified.
    const shared = sharedNodesProblem(document, root);
    if (shared !== undefined) return { ok: false, problems: [shared] };
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
  const read = readYaml(document, root);
  if (!read.ok) return read;
  const shared = sharedNodesProblem(read.value, root);
  return shared === undefined ? read : { ok: false, problems: [shared] };
};
