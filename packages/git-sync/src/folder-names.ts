// Names of the folders and files the sync writes, made from record names a user chose: safe on every git
// host and file system (no `/`, no leading `.`, no control or reserved characters), readable, stable.

/** A path segment for `name`: letters, digits, `.`, `_`, `-` kept; runs of anything else become `-`. */
export const pathSegment = (name: string): string => {
  const slug = name
    .normalize("NFKC")
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[-.]+|[-.]+$/g, "")
    .slice(0, 100);
  return slug === "" ? "_" : slug;
};

/** Segments for `names` in order, made unique by a `-2`, `-3`, ... suffix, none of them in `taken`. */
export const uniqueSegments = (names: ReadonlyArray<string>, taken: ReadonlyArray<string> = []): Array<string> => {
  const used = new Set(taken.map((t) => t.toLowerCase()));
  return names.map((name) => {
    const base = pathSegment(name);
    let candidate = base;
    for (let n = 2; used.has(candidate.toLowerCase()); n++) candidate = `${base}-${n}`;
    used.add(candidate.toLowerCase());
    return candidate;
  });
};
