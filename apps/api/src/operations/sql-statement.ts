// What a span tells of a SQL statement beyond its text (OpenTelemetry database semantic conventions):
// `db.operation.name` (the statement's first keyword: SELECT, INSERT, BEGIN, ...; after WITH, the first
// operation in the text), `db.collection.name` when
// the statement works on one table at its top level, and the span name `<operation> <table>` (or the
// operation alone). The adapter's statements are a fixed set of texts, so each is analysed once.

/** The operation and the table of one statement, and the span name they make. */
export interface DescribedStatement {
  readonly operation?: string | undefined;
  readonly collection?: string | undefined;
  readonly summary: string;
}

const CACHE_LIMIT = 1_000;
const cache = new Map<string, DescribedStatement>();

/** The statement with quoted literals and everything inside parentheses blanked: its top level. */
const topLevel = (sql: string): string => {
  let depth = 0;
  let quoted = false;
  let out = "";
  for (const c of sql) {
    if (quoted) {
      if (c === "'") quoted = false;
      out += " ";
    } else if (c === "'") {
      quoted = true;
      out += " ";
    } else if (c === "(") {
      depth++;
      out += " ";
    } else if (c === ")") {
      depth = Math.max(0, depth - 1);
      out += " ";
    } else out += depth === 0 ? c : " ";
  }
  return out;
};

const TABLES = /\b(?:from|into|update|join)\s+"?([A-Za-z_][A-Za-z0-9_]*)"?/gi;

const analyse = (sql: string): DescribedStatement => {
  const top = topLevel(sql);
  const keyword = (/^\s*([A-Za-z]+)/.exec(sql)?.[1] ?? "").toUpperCase();
  // WITH is no operation: the conventions take the first operation found in the text (the first CTE's).
  const operation =
    keyword === "WITH" ? (/\b(select|insert|update|delete|merge)\b/i.exec(sql)?.[1] ?? keyword).toUpperCase() : keyword;
  const tables = new Set([...top.matchAll(TABLES)].map((m) => m[1]?.toLowerCase()));
  // One table at the top level (a join, or none, leaves the collection out, as the conventions ask).
  const collection = tables.size === 1 ? [...tables][0] : undefined;
  if (operation === "") return { operation: undefined, collection: undefined, summary: "postgresql" };
  return { operation, collection, summary: collection === undefined ? operation : `${operation} ${collection}` };
};

/** The operation, table and span name of a statement. */
export const describeStatement = (sql: string): DescribedStatement => {
  const known = cache.get(sql);
  if (known !== undefined) return known;
  const described = analyse(sql);
  if (cache.size < CACHE_LIMIT) cache.set(sql, described);
  return described;
};
