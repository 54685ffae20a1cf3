import type { FieldProblem } from "../errors/domain-errors.js";
import { type BodyEncoding, DEFAULT_REQ_CONTENT_TYPE } from "../tool/tool-body-fields.js";
import type { JsonObject } from "../validation/text.js";
import type { DescribedBody } from "./api-description.js";

// docs/api-rules.md §15a: an operation's request body becomes the tool's `bodyArgs` whatever its media
// type. JSON and forms keep their schema; a form or multipart body also keeps its Encoding Objects
// (`reqBodyEncoding`); a binary string (`format: binary`, OpenAPI 3.0's file) becomes a base64 string
// (`contentEncoding: base64`), sent as the bytes it encodes; text, XML and any other type take a string,
// base64 of the body's bytes when the type or the schema says the body is binary (octet-stream, images, …).

/** The body fields of a tool mapped from an operation. */
export interface MappedBody {
  readonly reqBodyJSONSchema?: JsonObject;
  readonly reqContentType?: string;
  readonly reqBodyEncoding?: BodyEncoding;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const isJsonMediaType = (mediaType: string) => /^application\/(?:[\w.+-]+\+)?json\b|^\*\/\*$/i.test(mediaType);
const isStructured = (mediaType: string) =>
  /^(?:application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(mediaType);
/** Media types whose bodies are bytes rather than text, when the schema does not say. */
const isBinary = (mediaType: string) =>
  /^(?:application\/(?:octet-stream|pdf|zip|gzip|x-tar)|image\/|audio\/|video\/|font\/)/i.test(mediaType);

const TOKEN = /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+$/;
const STYLES = new Set(["form", "spaceDelimited", "pipeDelimited", "deepObject"]);

/** A media type a tool can name: parameters dropped, a wildcard (`image/*`) read as octet-stream. */
const concrete = (mediaType: string): string => {
  const essence = (mediaType.split(";")[0] ?? "").trim().toLowerCase();
  if (essence === "*/*") return DEFAULT_REQ_CONTENT_TYPE;
  return TOKEN.test(essence) ? essence : "application/octet-stream";
};

/** Every binary string of a schema (nested ones, `$defs` too) as a base64 string. */
const base64Binary = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(base64Binary);
  if (!isRecord(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node))
    out[key] =
      key === "enum" || key === "const" || key === "default" || key === "examples" ? value : base64Binary(value);
  if (out.format === "binary" || (typeof out.contentMediaType === "string" && out.contentEncoding === undefined)) {
    delete out.format;
    out.contentEncoding = "base64";
  }
  return out;
};

/** The Encoding Objects a tool can carry; what a tool cannot (an unknown style) is left out. */
const encodingOf = (body: DescribedBody): BodyEncoding => {
  const out: Record<string, BodyEncoding[string]> = {};
  for (const [name, entry] of Object.entries(body.encoding ?? {})) {
    const kept = {
      ...(entry.style !== undefined && STYLES.has(entry.style)
        ? { style: entry.style as NonNullable<BodyEncoding[string]["style"]> }
        : {}),
      ...(entry.explode !== undefined ? { explode: entry.explode } : {}),
      ...(entry.contentType !== undefined && TOKEN.test(entry.contentType.split(",")[0]?.trim() ?? "")
        ? { contentType: entry.contentType.split(",")[0]?.trim() as string }
        : {}),
    };
    if (Object.keys(kept).length > 0) out[name] = kept;
  }
  return out;
};

/**
 * The tool's body fields for an operation's request body, or nothing (a GET or HEAD sends none: warned).
 */
export const mapRequestBody = (
  body: DescribedBody | undefined,
  method: string,
  location: string,
  warnings: Array<FieldProblem>,
): MappedBody => {
  if (body === undefined || body.mediaType === undefined) return {};
  if (method === "GET" || method === "HEAD") {
    warnings.push({
      path: `${location}.requestBody`,
      message: `a ${method} tool sends no body: the request body is not mapped`,
    });
    return {};
  }
  const mediaType = body.mediaType;
  const schema = body.schema ?? {};
  if (isJsonMediaType(mediaType))
    return {
      reqBodyJSONSchema:
        Object.keys(schema).length === 0 ? { description: "the request body: any JSON value" } : schema,
      reqContentType: concrete(mediaType),
    };
  if (isStructured(mediaType))
    return {
      reqBodyJSONSchema:
        Object.keys(schema).length === 0
          ? { type: "object", description: "the fields of the request body" }
          : (base64Binary(schema) as JsonObject),
      reqContentType: concrete(mediaType),
      reqBodyEncoding: encodingOf(body),
    };
  const binary =
    isBinary(mediaType) ||
    schema.format === "binary" ||
    schema.contentEncoding !== undefined ||
    schema.contentMediaType !== undefined;
  const described = typeof schema.description === "string" ? `${schema.description}\n\n` : "";
  return {
    reqBodyJSONSchema: binary
      ? {
          type: "string",
          contentEncoding: "base64",
          description: `${described}the ${mediaType} body, base64-encoded (sent as the bytes it encodes)`,
        }
      : { type: "string", description: `${described}the ${mediaType} body, as text` },
    reqContentType: concrete(mediaType),
  };
};
