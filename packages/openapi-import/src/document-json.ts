import type { FieldProblem } from "@mcpsm/domain";
import type { DocumentJson } from "@mcpsm/domain/openapi-import";
import { jsonPath } from "@mcpsm/domain/schemas";
import { visit } from "jsonc-parser";
import { MAX_DOCUMENT_BYTES } from "./read-text.js";

// `import.document` as the JSON text of the request body that held it (DocumentJson): parsed here, where the
// description is read (a worker thread in the service), with the checks the service applies to any JSON body
// (a key repeated within an object is refused, naming it) and the size limit of a description sent as an
// object (its compact JSON).

export type ParsedDocument =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problems: Array<FieldProblem>; readonly detail?: string };

/** How many members the objects of a parsed JSON value have in all. */
const memberCount = (value: unknown): number => {
  let count = 0;
  const stack: Array<unknown> = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) for (const item of node) stack.push(item);
    else if (typeof node === "object" && node !== null) {
      const values = Object.values(node);
      count += values.length;
      for (const item of values) stack.push(item);
    }
  }
  return count;
};

/** The path of the first member whose key repeats one before it in the same object (jsonc-parser's scanner). */
const duplicateKeyPath = (text: string): ReadonlyArray<string | number> => {
  const objects: Array<Set<string>> = [];
  let found: ReadonlyArray<string | number> = [];
  let done = false;
  visit(
    text,
    {
      onObjectBegin: () => void objects.push(new Set()),
      onObjectEnd: () => void objects.pop(),
      onObjectProperty: (key, _offset, _length, _line, _column, path) => {
        const keys = objects.at(-1);
        if (!done && keys?.has(key)) {
          found = [...path(), key];
          done = true;
        }
        keys?.add(key);
      },
    },
    { disallowComments: true, allowTrailingComma: false },
  );
  return found;
};

const refusal = (path: string, message: string): ParsedDocument => ({
  ok: false,
  problems: [{ path, message }],
  detail: `${path}: ${message}`,
});

/**
 * The value of a DocumentJson located at `root`: a string (the description's JSON or YAML text) or what the
 * caller sent in its place; an object over the size limit of a description is refused here.
 */
export const parseDocumentJson = (document: DocumentJson, root: string): ParsedDocument => {
  const { bytes } = document;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The service cut this text out of its request body unparsed: the body as a whole is not JSON.
    return {
      ok: false,
      problems: [{ path: "", message: "the request body is not valid JSON" }],
      detail: "the request body is not valid JSON",
    };
  }
  if (memberCount(value) !== document.members)
    return refusal(jsonPath(root, duplicateKeyPath(text)), "the key appears more than once in its object");
  if (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    document.bytes.length > MAX_DOCUMENT_BYTES
  ) {
    // Measured as compact JSON, as an object sent by a caller in this process is: the text may hold whitespace.
    const bytes = Buffer.byteLength(JSON.stringify(value), "utf8");
    if (bytes > MAX_DOCUMENT_BYTES)
      return {
        ok: false,
        problems: [
          {
            path: root,
            message: `is ${(bytes / 1024 / 1024).toFixed(1)} MiB; a description may be at most ${MAX_DOCUMENT_BYTES / 1024 / 1024} MiB`,
          },
        ],
      };
  }
  return { ok: true, value };
};
