import type { FieldProblem } from "@mcpsm/domain";
import { MAX_DEPTH } from "./document-shape.js";

// A parsed YAML value shares what its aliases point at: a few hundred bytes can stand for 10^8 nodes (an
// "alias bomb"), and every later walk (the 2.0 converter, the scan, the expansion) would visit each path.
// This walk visits each distinct node once and counts what the value expands into, empty collections
// included, so the bomb is refused before anything walks it.

/** Most nodes the aliases of a document may add once expanded (nodes reached by more than one path). */
export const MAX_ALIAS_EXPANSION = 100_000;

class Refused extends Error {
  constructor(readonly problem: string) {
    super(problem);
  }
}

/**
 * Why `value` may not be read further: a node that contains itself, nesting deeper than MAX_DEPTH, or
 * aliases expanding into more than MAX_ALIAS_EXPANSION extra nodes. Undefined when none.
 */
export const sharedNodesProblem = (value: unknown, root: string): FieldProblem | undefined => {
  /** Expanded size of each distinct collection (itself, plus every node below it on every path). */
  const sizes = new Map<object, number>();
  const open = new Set<object>();
  let distinct = 0;
  const cap = MAX_ALIAS_EXPANSION + 1;
  const size = (node: unknown, depth: number): number => {
    if (typeof node !== "object" || node === null) return 1;
    const known = sizes.get(node);
    if (known !== undefined) return known;
    if (open.has(node)) throw new Refused("holds a YAML alias that refers to a node containing it");
    if (depth > MAX_DEPTH) throw new Refused(`is nested deeper than ${MAX_DEPTH} levels`);
    open.add(node);
    let total = 1;
    distinct++;
    for (const child of Array.isArray(node) ? node : Object.values(node as Record<string, unknown>)) {
      if (typeof child !== "object" || child === null) distinct++;
      total += size(child, depth + 1);
      if (total - distinct > cap)
        throw new Refused(
          `has YAML aliases that expand into more than ${MAX_ALIAS_EXPANSION.toLocaleString("en")} nodes`,
        );
    }
    open.delete(node);
    sizes.set(node, total);
    return total;
  };
  try {
    const total = size(value, 1);
    if (total - distinct > MAX_ALIAS_EXPANSION)
      return {
        path: root,
        message: `has YAML aliases that expand into more than ${MAX_ALIAS_EXPANSION.toLocaleString("en")} nodes`,
      };
  } catch (error) {
    if (error instanceof Refused) return { path: root, message: error.problem };
    throw error;
  }
  return undefined;
};
