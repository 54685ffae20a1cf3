/** The weak ETag of a versioned record (a version number, or a variable's update time in epoch ms). */
export const etagOf = (version: number): string => `W/"${version}"`;

/**
 * The version an If-Match header names, `undefined` when absent or `*`, and -1 (matches nothing) when it
 * names no version of ours. Weak tags are compared by their opaque value, since our tags are revision numbers.
 */
export const ifMatchVersion = (header: string | undefined): number | undefined => {
  if (header === undefined || header.trim() === "*") return undefined;
  const match = /^\s*(?:W\/)?"(\d{1,16})"\s*$/.exec(header);
  return match?.[1] === undefined ? -1 : Number(match[1]);
};
