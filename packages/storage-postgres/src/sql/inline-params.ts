import pg from "pg";

// Several statements travel in one round trip only as a simple query, which takes no parameters: a statement
// joining others (an advisory lock, a savepoint, the audit event before COMMIT) has its parameters written
// into its text as quoted literals, converted as pg converts parameters (arrays as array literals).

/** pg's conversion of a parameter to its text form (untyped in @types/pg). */
const prepareValue = (pg as unknown as { readonly utils: { readonly prepareValue: (value: unknown) => unknown } }).utils
  .prepareValue;

/**
 * `text` as a quoted literal, exactly as pg's `escapeLiteral` writes it (quotes doubled; with a backslash, an
 * escape string with backslashes doubled), in two native passes: pg's walks the text a character at a time,
 * ~1 ms for a revision's 29 KB document.
 */
export const quotedLiteral = (text: string): string => {
  const quoted = text.replaceAll("'", "''");
  return text.includes("\\") ? ` E'${quoted.replaceAll("\\", "\\\\")}'` : `'${quoted}'`;
};

/**
 * The lexical pieces of SQL text a `$n` may hide in, each kept as it is, then a `$n` placeholder (group
 * `n`), then an opener that none of the kept pieces closed (group `open`: the text is not understood).
 * Kept: escape strings `E'…'` (backslash escapes), standard strings `'…'`, quoted identifiers `"…"`,
 * dollar-quoted strings `$tag$…$tag$` and `$$…$$`, line comments `-- …` and block comments.
 */
const PLACEHOLDER =
  /(?<![\w$])[Ee]'(?:[^'\\]|\\[\s\S]|'')*'|'(?:[^']|'')*'|"(?:[^"]|"")*"|\$([A-Za-z_][A-Za-z0-9_]*)?\$[\s\S]*?\$\1\$|--[^\n]*|\/\*[\s\S]*?\*\/|\$(?<n>\d+)|(?<open>['"]|\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$|\/\*)/g;

/**
 * Each parameter as a quoted literal (`null` for null), as `inlineParams` writes them (also the arguments of an
 * `execute`); undefined when one has no safe text form (binary data, a NUL character).
 */
export const literalsOf = (params: ReadonlyArray<unknown>): Array<string> | undefined => {
  const literals: Array<string> = [];
  for (const param of params) {
    const text = prepareValue(param);
    if (text === null) literals.push("null");
    else if (typeof text === "string" && !text.includes("\0")) literals.push(quotedLiteral(text));
    else return undefined;
  }
  return literals;
};

/**
 * `sql` with each `$n` replaced by parameter n as a quoted literal (`null` for null), so that it can join
 * other statements in a simple query. Undefined when a parameter has no safe text form (binary data, a NUL
 * character, which a simple query cannot carry), a placeholder has no parameter, or the text holds a quote,
 * dollar quote or comment left open (or a nested block comment): send it on its own then.
 * Quoted literals are untyped, as parameters are, so PostgreSQL infers the same types.
 */
export const inlineParams = (sql: string, params: ReadonlyArray<unknown>): string | undefined => {
  if (params.length === 0) return sql;
  const literals = literalsOf(params);
  if (literals === undefined) return undefined;
  let complete = true;
  const inlined = sql.replace(PLACEHOLDER, (match: string, ...rest: Array<unknown>) => {
    const groups = rest.at(-1) as { readonly n?: string; readonly open?: string };
    // A block comment nests in PostgreSQL; an opener left unclosed: the text is not what this reads it as.
    if (groups.open !== undefined || (match.startsWith("/*") && match.slice(2).includes("/*"))) complete = false;
    if (groups.n === undefined) return match;
    const literal = literals[Number(groups.n) - 1];
    if (literal === undefined) complete = false;
    return literal ?? match;
  });
  return complete ? inlined : undefined;
};
