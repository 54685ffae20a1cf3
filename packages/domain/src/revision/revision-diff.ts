import { createTwoFilesPatch } from "diff";

// What changed between two export documents (docs/api-rules.md §21), worked out from the JSON alone so a
// field the document gains later (a tool's `serverSettings`, a server's `approvalPolicy`) is diffed without
// a change here: objects are compared field by field down to their leaves, arrays whose items all carry a
// string `name` are sets of members matched by name (providers, tools, prompts, resources, variables, a
// prompt's arguments), any other value is compared whole. The unified text form, for people, is the
// `diff` library's patch of the two documents as indented JSON.

/** One changed value: its path below the member (or the document), before and after (absent: not there). */
export interface FieldChange {
  readonly path: string;
  readonly before?: unknown;
  readonly after?: unknown;
}

/** A member added, removed or changed: a provider, a tool, a prompt, a resource, a variable. */
export interface MemberChange {
  /** The singular of the list it is in (`providers` → `provider`). */
  readonly kind: string;
  readonly name: string;
  readonly change: "added" | "removed" | "changed";
  /** For a changed member: its fields that changed. */
  readonly fields: ReadonlyArray<FieldChange>;
  /** For a changed member: its own members that changed (a provider's tools). */
  readonly members: ReadonlyArray<MemberChange>;
}

/** The structured difference of two documents. */
export interface DocumentDiff {
  readonly fields: ReadonlyArray<FieldChange>;
  readonly members: ReadonlyArray<MemberChange>;
}

type Json = unknown;
type Named = { readonly name: string } & Readonly<Record<string, Json>>;

const isObject = (value: Json): value is Readonly<Record<string, Json>> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const isNamedList = (value: Json): value is ReadonlyArray<Named> =>
  Array.isArray(value) && value.every((item) => isObject(item) && typeof item.name === "string");

/** Two values' canonical forms are equal (object key order does not matter). */
const same = (a: Json, b: Json): boolean => {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => same(item, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((key) => same(a[key], b[key]));
  }
  return false;
};

const singular = (key: string) => (key.endsWith("s") ? key.slice(0, -1) : key);

const join = (prefix: string, key: string) => (prefix === "" ? key : `${prefix}.${key}`);

/** Members keyed by name; a repeated name gets `#2`, `#3`… so nothing is lost. */
const byName = (items: ReadonlyArray<Named>) => {
  const keyed = new Map<string, Named>();
  for (const item of items) {
    let key = item.name;
    for (let n = 2; keyed.has(key); n++) key = `${item.name}#${n}`;
    keyed.set(key, item);
  }
  return keyed;
};

/** The differences of two objects: leaf fields into `fields`, named lists into `members`. */
const compareObjects = (
  before: Readonly<Record<string, Json>>,
  after: Readonly<Record<string, Json>>,
  prefix: string,
  fields: Array<FieldChange>,
  members: Array<MemberChange>,
) => {
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const a = before[key];
    const b = after[key];
    if (same(a, b)) continue;
    const path = join(prefix, key);
    if (isObject(a) && isObject(b)) compareObjects(a, b, path, fields, members);
    else if ((a === undefined || isNamedList(a)) && (b === undefined || isNamedList(b)) && prefix === "")
      members.push(...compareMembers(singular(key), a ?? [], b ?? []));
    else fields.push({ path, ...(a === undefined ? {} : { before: a }), ...(b === undefined ? {} : { after: b }) });
  }
};

/** The member changes of two named lists, in the order of `after` then the removed ones. */
const compareMembers = (kind: string, before: ReadonlyArray<Named>, after: ReadonlyArray<Named>) => {
  const was = byName(before);
  const is = byName(after);
  const changes: Array<MemberChange> = [];
  for (const [key, item] of is) {
    const old = was.get(key);
    if (old === undefined) changes.push({ kind, name: item.name, change: "added", fields: [], members: [] });
    else if (!same(old, item)) {
      const diff = diffDocuments(old, item);
      changes.push({ kind, name: item.name, change: "changed", ...diff });
    }
  }
  for (const [key, item] of was)
    if (!is.has(key)) changes.push({ kind, name: item.name, change: "removed", fields: [], members: [] });
  return changes;
};

/** The structured difference from `before` to `after` (any two JSON objects, usually export documents). */
export const diffDocuments = (before: Json, after: Json): DocumentDiff => {
  const fields: Array<FieldChange> = [];
  const members: Array<MemberChange> = [];
  if (isObject(before) && isObject(after)) compareObjects(before, after, "", fields, members);
  else if (!same(before, after)) fields.push({ path: "", before, after });
  return { fields, members };
};

/** The unified diff of two documents as indented JSON, for people. */
export const unifiedDiff = (before: Json, after: Json, beforeName: string, afterName: string): string =>
  createTwoFilesPatch(
    beforeName,
    afterName,
    `${JSON.stringify(before, null, 2)}\n`,
    `${JSON.stringify(after, null, 2)}\n`,
    undefined,
    undefined,
    { context: 3 },
  );
