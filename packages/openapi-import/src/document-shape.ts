import type { FieldProblem } from "@mcpsm/domain";
import { isObject, locate, resolvePointer } from "./document-path.js";

/** Deepest nesting a description may have; deeper ones are refused before any recursive walk. */
export const MAX_DEPTH = 256;

/** Nesting depth of a JSON value (at most MAX_DEPTH + 1), measured without recursion. */
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

/** One node of the walk, with how it was reached (the path is only built when a problem needs it). */
interface Frame {
  readonly node: unknown;
  readonly key: string | number;
  readonly parent: Frame | undefined;
  readonly depth: number;
}

const pathOf = (frame: Frame): Array<string | number> => {
  const path: Array<string | number> = [];
  for (let f: Frame | undefined = frame; f?.parent !== undefined; f = f.parent) path.push(f.key);
  return path.reverse();
};

/** Keywords whose values are data, not description: a `$ref` key inside one is not a reference. */
const DATA_KEYS = new Set(["example", "examples", "default", "enum", "const"]);

/** Whether `key` under the node reached by `parent` holds data: `responses.default` is the default response. */
const isData = (key: string, parent: Frame) => DATA_KEYS.has(key) && !(key === "default" && parent.key === "responses");

/**
 * One walk of the whole document, without recursion: its depth (a document deeper than MAX_DEPTH is refused),
 * every local `$ref` that points nowhere (a problem) and every remote one (a warning: never fetched), each
 * located in the document as sent.
 */
export const scanDocument = (document: unknown, root: string) => {
  const problems: Array<FieldProblem> = [];
  const warnings: Array<FieldProblem> = [];
  const stack: Array<Frame> = [{ node: document, key: "", parent: undefined, depth: 1 }];
  // A YAML alias makes a node reachable by more than one path: it is scanned once, at the first.
  const visited = new Set<unknown>();
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const { node, depth } = frame;
    if (visited.has(node)) continue;
    visited.add(node);
    if (depth > MAX_DEPTH)
      return { problems: [{ path: root, message: `is nested deeper than ${MAX_DEPTH} levels` }], warnings: [] };
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--)
        if (typeof node[i] === "object" && node[i] !== null)
          stack.push({ node: node[i], key: i, parent: frame, depth: depth + 1 });
      continue;
    }
    if (!isObject(node)) continue;
    const ref = node.$ref;
    if (typeof ref === "string") {
      if (!ref.startsWith("#"))
        warnings.push({
          path: locate(root, [...pathOf(frame), "$ref"]),
          message: `remote $ref '${ref}' is not fetched`,
        });
      else if (resolvePointer(document, ref) === undefined)
        problems.push({
          path: locate(root, [...pathOf(frame), "$ref"]),
          message: `$ref '${ref}' points to nothing in the document`,
        });
    }
    const keys = Object.keys(node);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      const value = node[key];
      if (typeof value === "object" && value !== null && !isData(key, frame))
        stack.push({ node: value, key, parent: frame, depth: depth + 1 });
    }
  }
  return { problems, warnings };
};
