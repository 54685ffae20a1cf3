import { createHash } from "node:crypto";

// The name under which a statement is prepared on each pooled connection: derived from its text, so that one
// text always has one name and two texts never share one (pg refuses a name reused for another text).

const names = new Map<string, string>();

/**
 * The prepared-statement name of `sql`. Only for statements whose texts are few (built from the code, never
 * from values): each distinct text stays prepared on every connection that ran it.
 */
export const statementName = (sql: string): string => {
  let name = names.get(sql);
  if (name === undefined) {
    name = `mcpsm_${createHash("sha256").update(sql).digest("hex").slice(0, 24)}`;
    names.set(sql, name);
  }
  return name;
};
