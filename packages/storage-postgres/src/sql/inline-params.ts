import pg from "pg";

// Several statements travel in one round trip only as a simple query, which takes no parameters: a statement
// joining others (an advisory lock, a savepoint, the audit event before COMMIT) has its parameters written
// into its text as quoted literals, converted as pg converts parameters (arrays as array literals).

/** pg's conversion of a parameter to its text form (untyped in @types/pg). */
const prepareValue = (pg as unknown as { readonly utils: { readonly prepareValue: (value: unknown) => unknown } }).utils
  .prepareValue;

/** A `$n` placeholder outside a quoted string or identifier (the literal alternatives are kept as they are). */
const PLACEHOLDER = /'(?:[^']|'')*'|"(?:[^"]|"")*"|\$(\d+)/g;

/**
 * `sql` with each `$n` replaced by parameter n as a quoted literal (`null` for null), so that it can join
 * other statements in a simple query. Undefined when a parameter has no safe text form (binary data, a NUL
 * character, which a simple query cannot carry) or a placeholder has no parameter: send it on its own then.
 * Quoted literals are untyped, as parameters are, so PostgreSQL infers the same types.
 */
export const inlineParams = (sql: string, params: ReadonlyArray<unknown>): string | undefined => {
  if (params.length === 0) return sql;
  const literals: Array<string> = [];
  for (const param of params) {
    const text = prepareValue(param);
    if (text === null) literals.push("null");
    else if (typeof text === "string" && !text.includes("\0")) literals.push(pg.escapeLiteral(text));
    else return undefined;
  }
  let complete = true;
  const inlined = sql.replace(PLACEHOLDER, (match, n: string | undefined) => {
    if (n === undefined) return match;
    const literal = literals[Number(n) - 1];
    if (literal === undefined) complete = false;
    return literal ?? match;
  });
  return complete ? inlined : undefined;
};
