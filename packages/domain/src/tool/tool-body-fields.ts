import { Schema } from "effect";

// The tool fields that say how its body travels and how its answer is checked (docs/api-rules.md §15a):
// the media type of the request body, the encoding rules of form and multipart bodies, and the opt-in to
// the exact response schema.

/** The media type a tool sends its body as when it names none. */
export const DEFAULT_REQ_CONTENT_TYPE = "application/json";

const TOKEN = "[A-Za-z0-9!#$&^_.+-]+";
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(?:\\s*;\\s*${TOKEN}=(?:${TOKEN}|"[^"\\u0000-\\u001f\\u007f]*"))*$`);

/** A media type with optional parameters (`application/json`, `text/plain; charset=utf-8`), at most 255 characters. */
export const MediaType = Schema.String.pipe(
  Schema.filter(
    (s) =>
      s.length > 255
        ? "must be at most 255 characters"
        : MEDIA_TYPE.test(s)
          ? true
          : "must be a media type such as application/json or multipart/form-data",
    { jsonSchema: { pattern: MEDIA_TYPE.source, maxLength: 255 } },
  ),
);

/** How OpenAPI serialises one property of a form or multipart body (its Encoding Object). */
export const BodyPropertyEncoding = Schema.Struct({
  style: Schema.optionalWith(Schema.Literal("form", "spaceDelimited", "pipeDelimited", "deepObject"), {
    exact: true,
  }),
  explode: Schema.optionalWith(Schema.Boolean, { exact: true }),
  contentType: Schema.optionalWith(MediaType, { exact: true }),
}).annotations({ identifier: "BodyPropertyEncoding" });
export type BodyPropertyEncoding = typeof BodyPropertyEncoding.Type;

/**
 * The encoding of a form or multipart body, per top-level property of `bodyArgs`; a property not named
 * uses OpenAPI's default (style `form`, explode true). At most 1,000 properties.
 */
export const BodyEncoding = Schema.Record({ key: Schema.String, value: BodyPropertyEncoding })
  .pipe(Schema.filter((record) => (Object.keys(record).length > 1000 ? "must name at most 1000 properties" : true)))
  .annotations({
    identifier: "BodyEncoding",
    description:
      "for form and multipart bodies: how each property of bodyArgs is serialised (OpenAPI encoding: style, explode, contentType); {} for the defaults",
  });
export type BodyEncoding = typeof BodyEncoding.Type;

/** Which `outputSchema` the tool declares: a lenient form of `respBodyJSONSchema` (default) or the exact one. */
export const OUTPUT_SCHEMA_MODES = ["LENIENT", "EXACT"] as const;
export const OutputSchemaMode = Schema.Literal(...OUTPUT_SCHEMA_MODES).annotations({
  description:
    "LENIENT (default): tools/list declares respBodyJSONSchema with required dropped, null and extra properties allowed, so every 2xx answer is a success; EXACT: the schema as written, and an answer that does not match is a tool error",
});
export type OutputSchemaMode = typeof OutputSchemaMode.Type;
