/** A location inside the document, under `root`: `import.document.paths['/pets'].get.parameters[0]`. */
export const locate = (root: string, segments: ReadonlyArray<string | number>): string =>
  segments.reduce<string>(
    (acc, key) =>
      typeof key === "number"
        ? `${acc}[${key}]`
        : /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)
          ? `${acc}.${key}`
          : `${acc}['${key.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}']`,
    root,
  );

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
export { isObject };

/**
 * The value a local `$ref` (`#/components/schemas/Pet`) points at, or undefined when it points nowhere.
 * RFC 6901 pointer in a URI fragment: percent-decoded, then `~1` → `/` and `~0` → `~`.
 */
export const resolvePointer = (root: unknown, ref: string): unknown => {
  if (!ref.startsWith("#")) return undefined;
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (fragment === "") return root;
  if (!fragment.startsWith("/")) return undefined;
  let node: unknown = root;
  for (const raw of fragment.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(node)) node = /^(0|[1-9]\d*)$/.test(key) ? node[Number(key)] : undefined;
    else if (isObject(node) && Object.hasOwn(node, key)) node = node[key];
    else return undefined;
    if (node === undefined) return undefined;
  }
  return node;
};
