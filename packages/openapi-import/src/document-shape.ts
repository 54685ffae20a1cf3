import type { FieldProblem } from "@mcpsm/domain";
import { isObject, locate, resolvePointer } from "./document-path.js";

/** Deepest nesting a description may have; deeper ones are refused before any recursive walk. */
export const MAX_DEPTH = 256;

/** Nesting depth of a JSON value, measured without recursion (a hostile document cannot exhaust the stack). */
export const depthOf = (value: unknown): number => {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== "object" || node === null) continue;
    if (depth > max) max = depth;
    if (depth > MAX_DEPTH) return depth;
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1]);
  }
  return max;
};

/**
 * Every `$ref` of the document: a local one that points nowhere is a problem, a remote one (another file or
 * a URL) a warning, since neither is ever fetched. Located in the document as sent.
 */
export const scanRefs = (document: unknown, root: string) => {
  const problems: Array<FieldProblem> = [];
  const warnings: Array<FieldProblem> = [];
  const stack: Array<[unknown, Array<string | number>]> = [[document, []]];
  while (stack.length > 0) {
    const [node, path] = stack.pop()!;
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push([node[i], [...path, i]]);
      continue;
    }
    if (!isObject(node)) continue;
    const ref = node.$ref;
    if (typeof ref === "string") {
      const at = locate(root, [...path, "$ref"]);
      if (!ref.startsWith("#")) warnings.push({ path: at, message: `remote $ref '${ref}' is not fetched` });
      else if (resolvePointer(document, ref) === undefined)
        problems.push({ path: at, message: `$ref '${ref}' points to nothing in the document` });
    }
    const entries = Object.entries(node);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, value] = entries[i]!;
      // Examples are data, not description: a `$ref` key inside one is not a reference.
      if (key === "example" || key === "examples" || key === "default" || key === "enum" || key === "const") continue;
      if (typeof value === "object" && value !== null) stack.push([value, [...path, key]]);
    }
  }
  return { problems, warnings };
};
