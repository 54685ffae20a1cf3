/**
 * How many times its input an expression's work and output can be, at most, counted as a tree (shared
 * references counted each time they are reached): `null` when no such bound holds (a function whose output
 * is not bounded by its arguments, a variable that may be reached many times, a node type not known here).
 *
 * A bound of `k` means evaluation does O(k · n log n) work and builds at most k times the input (n), so an
 * expression under `IN_PROCESS_MAX_MULTIPLIER` runs in the caller's thread without a meter; any other runs
 * in the sandbox, where the deadline and memory limits hold whatever it does.
 */
export const IN_PROCESS_MAX_MULTIPLIER = 16;

/**
 * The most work an in-process run may be bounded by: input characters times the cost bound. Past it the
 * expression runs in the sandbox, so a cheap-by-construction expression on a large answer (16 × 1 MB) never
 * holds the caller's thread for the tens of milliseconds building and serialising its output takes.
 */
export const IN_PROCESS_MAX_WORK_CHARS = 4 * 1024 * 1024;

/** Functions whose output is bounded by their arguments and whose work is at most n log n. */
const LINEAR_FUNCTIONS = new Set([
  "abs",
  "avg",
  "ceil",
  "contains",
  "ends_with",
  "floor",
  "from_items",
  "items",
  "join",
  "keys",
  "length",
  "lower",
  "max",
  "merge",
  "min",
  "not_null",
  "reverse",
  "sort",
  "split",
  "starts_with",
  "sum",
  "to_array",
  "to_number",
  "to_string",
  "type",
  "upper",
  "values",
  "zip",
]);

/** Functions taking an expression reference applied to each element of their array argument. */
const PER_ELEMENT_FUNCTIONS = new Set(["map", "sort_by", "max_by", "min_by", "group_by"]);

type Node = { readonly type: string; readonly [key: string]: unknown };

const isNode = (value: unknown): value is Node =>
  typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string";

const product = (values: ReadonlyArray<number | null>): number | null =>
  values.reduce<number | null>((acc, v) => (acc === null || v === null ? null : acc * v), 1);

const sum = (values: ReadonlyArray<number | null>): number | null =>
  values.reduce<number | null>((acc, v) => (acc === null || v === null ? null : acc + v), 0);

const children = (node: Node): ReadonlyArray<Node> => {
  const list = node.children;
  return Array.isArray(list) ? list.filter(isNode) : [];
};

export const costMultiplier = (node: { readonly type: string; readonly [key: string]: unknown }): number | null => {
  const m = (child: unknown): number | null => (isNode(child) ? costMultiplier(child) : 1);
  switch (node.type) {
    case "Field":
    case "Current":
    case "Identity":
    case "Literal":
    case "Index":
    case "Slice":
      return 1;
    case "Subexpression":
    case "IndexExpression":
    case "Pipe":
    case "Projection":
    case "ValueProjection":
      return product([m(node.left), m(node.right)]);
    case "FilterProjection":
      return product([m(node.left), sum([m(node.right), m(node.condition)])]);
    case "Flatten":
    case "ExpressionReference":
    case "NotExpression":
    case "Not":
      return m(node.child);
    case "Unary":
      return m(node.operand);
    case "KeyValuePair":
      return m(node.value);
    case "MultiSelectList":
    case "MultiSelectHash":
      return sum(children(node).map((c) => costMultiplier(c)));
    case "Comparator":
    case "And":
    case "AndExpression":
    case "Or":
    case "OrExpression":
    case "Arithmetic":
      return sum([m(node.left), m(node.right)]);
    case "Ternary":
      return sum([m(node.condition), m(node.trueExpr), m(node.falseExpr)]);
    case "Function": {
      const name = String(node.name);
      const args = children(node).map((c) => costMultiplier(c));
      if (LINEAR_FUNCTIONS.has(name)) return sum(args);
      if (PER_ELEMENT_FUNCTIONS.has(name)) return product(args);
      return null;
    }
    default:
      return null;
  }
};
