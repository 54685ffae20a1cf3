/**
 * The JSON text of `value` when it takes at most `maxBytes` (UTF-8), else undefined, found without writing
 * out more than the budget allows: a value that shares sub-objects (a DAG) can stand for a text of gigabytes,
 * so the walk counts every path it meets, and stops as soon as the count passes the budget.
 */
export const boundedJsonText = (value: unknown, maxBytes: number): string | undefined => {
  // A lower bound of the text's size: UTF-16 units, no escapes. Each node adds at least one unit, so the walk
  // visits at most maxBytes nodes.
  let bytes = 0;
  const stack: Array<unknown> = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === "string") bytes += node.length + 2;
    else if (typeof node === "number" || typeof node === "boolean") bytes += String(node).length;
    else if (node === null) bytes += 4;
    else if (Array.isArray(node)) {
      bytes += 1 + node.length;
      for (const item of node) stack.push(item);
    } else if (typeof node === "object") {
      bytes += 1;
      for (const [key, item] of Object.entries(node)) {
        if (item === undefined || typeof item === "function") continue;
        bytes += key.length + 4;
        stack.push(item);
      }
    }
    if (bytes > maxBytes) return undefined;
  }
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch {
    return undefined;
  }
  return Buffer.byteLength(text, "utf8") > maxBytes ? undefined : text;
};
