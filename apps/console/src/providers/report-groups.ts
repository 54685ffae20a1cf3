// A dry run of a large description can skip or warn about hundreds of operations for a handful of reasons
// (docs/api-rules.md §15a): the report page shows them grouped by reason, the largest group first, so a user
// sees every one before applying the import without reading the same sentence three hundred times.

/** A reason with its specifics (quoted values, JSON paths, media types, numbers) blanked, so that reasons group. */
export const reasonKey = (text: string): string =>
  text
    .replace(/^tool\.[\w.[\]"'-]+: /, "")
    // A quote, not an apostrophe (`service's`): no letter just outside it.
    .replace(/"[^"]*"|(?<![A-Za-z])'[^']*'(?![A-Za-z])/g, "…")
    .replace(/\([^()]*\)/g, "(…)")
    .replace(/\b[\w.+-]+\/[\w.+-]+\b/g, "…/…")
    .replace(/\d+/g, "N");

/** Items grouped by the key of their reason, largest group first (then by first appearance). */
export const groupByReason = <T>(items: ReadonlyArray<T>, reasonOf: (item: T) => string) => {
  const groups = new Map<string, Array<T>>();
  for (const item of items) {
    const key = reasonKey(reasonOf(item));
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [item]);
    else group.push(item);
  }
  return [...groups.entries()]
    .map(([reason, members]) => ({ reason, items: members }))
    .sort((a, b) => b.items.length - a.items.length);
};
