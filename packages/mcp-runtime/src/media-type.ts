/** The essence of a media type (`application/json; charset=utf-8` → `application/json`). */
export const essence = (contentType: string): string => (contentType.split(";")[0] ?? "").trim().toLowerCase();

/** JSON media types: `application/json` and any `+json` suffix. */
export const isJsonType = (contentType: string): boolean => {
  const type = essence(contentType);
  return type === "application/json" || type.endsWith("+json");
};

const TEXTUAL = new Set([
  "application/javascript",
  "application/ecmascript",
  "application/xml",
  "application/yaml",
  "application/x-yaml",
  "application/graphql",
  "application/x-ndjson",
  "application/x-www-form-urlencoded",
  "application/sql",
  "image/svg+xml",
]);

/** Media types whose bodies are text (returned as text rather than base64). An empty type counts as text. */
export const isTextualType = (contentType: string): boolean => {
  const type = essence(contentType);
  return type === "" || type.startsWith("text/") || isJsonType(type) || type.endsWith("+xml") || TEXTUAL.has(type);
};
