import type { FieldProblem } from "../errors/domain-errors.js";
import type { ToolRow } from "../storage/rows.js";
import type { BodyPropertyEncoding } from "../tool/tool-body-fields.js";
import { formPairs } from "./form-encoding.js";

// docs/api-rules.md §15a: `bodyArgs` goes upstream in the media type the tool names (`reqContentType`):
// JSON; a form (`application/x-www-form-urlencoded`, by the OpenAPI encoding rules of `reqBodyEncoding`);
// `multipart/form-data` (a part whose schema says `contentEncoding: base64` is sent as a file of those
// bytes); any other type takes a string, sent as its UTF-8 text or, when the body schema says
// `contentEncoding: base64`, as the bytes it encodes. Pure: the multipart parts are assembled by the runtime.

/** One part of a multipart/form-data body. */
export interface MultipartPart {
  readonly name: string;
  readonly value: string | Uint8Array;
  /** Set for file parts (bytes). */
  readonly contentType?: string | undefined;
  readonly filename?: string | undefined;
}

/** The body of an upstream request, encoded (or, for multipart, its parts). */
export type PlannedBody =
  | { readonly kind: "bytes"; readonly contentType: string; readonly data: string | Uint8Array }
  | { readonly kind: "multipart"; readonly parts: ReadonlyArray<MultipartPart> };

/** The essence of a media type (`Text/Plain; charset=x` → `text/plain`). */
export const mediaTypeEssence = (mediaType: string): string => (mediaType.split(";")[0] ?? "").trim().toLowerCase();

/** JSON media types: `application/json` and any `+json` suffix. */
export const isJsonMediaType = (mediaType: string): boolean => {
  const essence = mediaTypeEssence(mediaType);
  return essence === "application/json" || essence.endsWith("+json");
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A local `$ref` of `root` (`#/$defs/X`, `#/definitions/X`) followed a few hops; anything else as is. */
const resolved = (root: Record<string, unknown>, node: unknown): Record<string, unknown> | undefined => {
  let current = node;
  for (let hops = 0; hops < 8 && isRecord(current) && typeof current.$ref === "string"; hops++) {
    const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(current.$ref);
    const defs = match === null ? undefined : root[match[1] as string];
    current = isRecord(defs) ? defs[(match?.[2] ?? "").replaceAll("~1", "/").replaceAll("~0", "~")] : undefined;
  }
  return isRecord(current) ? current : undefined;
};

/** The schema of the body's property `name` (through a root `$ref` and `allOf`), when declared. */
const propertySchema = (root: Record<string, unknown> | null, name: string): Record<string, unknown> | undefined => {
  if (root === null) return undefined;
  const visit = (node: unknown, depth: number): Record<string, unknown> | undefined => {
    const schema = resolved(root, node);
    if (schema === undefined || depth > 8) return undefined;
    const properties = schema.properties;
    if (isRecord(properties) && name in properties) return resolved(root, properties[name]);
    for (const branch of Array.isArray(schema.allOf) ? schema.allOf : []) {
      const found = visit(branch, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return visit(root, 0);
};

/** True when a schema says its string is base64 of binary content. */
const saysBase64 = (schema: Record<string, unknown> | undefined): boolean =>
  schema !== undefined && (schema.contentEncoding === "base64" || schema.format === "binary");

const BASE64 = /^[A-Za-z0-9+/\-_]*={0,2}$/;

/** The bytes a base64 (or base64url) string encodes, or undefined when it is not one. */
const base64Bytes = (text: string): Uint8Array | undefined => {
  const compact = text.replace(/\s+/g, "");
  if (!BASE64.test(compact)) return undefined;
  return Buffer.from(compact, compact.includes("-") || compact.includes("_") ? "base64url" : "base64");
};

const scalarText = (value: unknown): string | undefined =>
  typeof value === "string"
    ? value
    : typeof value === "number" || typeof value === "boolean"
      ? String(value)
      : undefined;

/** The parts of one property of a multipart body (arrays repeat the part; objects are JSON parts). */
const partsOf = (
  name: string,
  value: unknown,
  schema: Record<string, unknown> | undefined,
  encoding: BodyPropertyEncoding | undefined,
  problems: Array<FieldProblem>,
  at: string,
): Array<MultipartPart> => {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) {
    const items = schema === undefined ? undefined : isRecord(schema.items) ? schema.items : undefined;
    return value.flatMap((item, i) => partsOf(name, item, items, encoding, problems, `${at}[${i}]`));
  }
  if (typeof value === "string" && saysBase64(schema)) {
    const bytes = base64Bytes(value);
    if (bytes === undefined) {
      problems.push({ path: at, message: "must be base64: the part is sent as the bytes it encodes" });
      return [];
    }
    const declared = typeof schema?.contentMediaType === "string" ? schema.contentMediaType : undefined;
    const contentType = encoding?.contentType ?? declared ?? "application/octet-stream";
    return [{ name, value: bytes, contentType, filename: name }];
  }
  const text = scalarText(value);
  if (text !== undefined)
    return [{ name, value: text, ...(encoding?.contentType ? { contentType: encoding.contentType } : {}) }];
  // OpenAPI's default for an object part is JSON: sent as a field holding its JSON text (FormData gives a
  // field no media type of its own, and servers read such fields as text to parse).
  return [{ name, value: JSON.stringify(value) }];
};

/**
 * The upstream body of a call of `tool` with `bodyArgs` `value` (undefined when none is sent), every problem
 * pushed to `problems` located at `bodyArgs…`.
 */
export const planBody = (tool: ToolRow, value: unknown, problems: Array<FieldProblem>): PlannedBody | undefined => {
  if (value === undefined) return undefined;
  const contentType = tool.reqContentType;
  const essence = mediaTypeEssence(contentType);
  if (isJsonMediaType(contentType)) return { kind: "bytes", contentType, data: JSON.stringify(value) };
  if (essence === "application/x-www-form-urlencoded" || essence === "multipart/form-data") {
    if (!isRecord(value)) {
      problems.push({ path: "bodyArgs", message: `must be an object: it is sent as ${essence}` });
      return undefined;
    }
    if (essence === "application/x-www-form-urlencoded") {
      const pairs = formPairs(value, tool.reqBodyEncoding);
      return { kind: "bytes", contentType, data: new URLSearchParams(pairs).toString() };
    }
    const parts = Object.entries(value).flatMap(([name, item]) =>
      partsOf(
        name,
        item,
        propertySchema(tool.reqBodyJSONSchema, name),
        tool.reqBodyEncoding[name],
        problems,
        `bodyArgs.${name}`,
      ),
    );
    return { kind: "multipart", parts };
  }
  const text = scalarText(value);
  if (text === undefined) {
    problems.push({ path: "bodyArgs", message: `must be a string: it is sent as the ${essence} body` });
    return undefined;
  }
  if (
    typeof value === "string" &&
    tool.reqBodyJSONSchema !== null &&
    saysBase64(resolved(tool.reqBodyJSONSchema, tool.reqBodyJSONSchema))
  ) {
    const bytes = base64Bytes(value);
    if (bytes === undefined) {
      problems.push({ path: "bodyArgs", message: "must be base64: the body is sent as the bytes it encodes" });
      return undefined;
    }
    return { kind: "bytes", contentType, data: bytes };
  }
  return { kind: "bytes", contentType, data: text };
};
