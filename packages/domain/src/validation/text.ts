import { Schema } from "effect";

/** C0 and C1 control characters and DEL: they break log lines, headers and terminals that show a name. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * What a client may send as a name: any white space around 1–100 characters without control characters
 * whose first and last are not white space (`\s` is exactly the set `String.prototype.trim` removes).
 */
const NAME_PATTERN =
  /^\s*[^\s\u0000-\u001f\u007f-\u009f](?:[^\u0000-\u001f\u007f-\u009f]{0,98}[^\s\u0000-\u001f\u007f-\u009f])?\s*$/;

/** Refuses control characters (CR, LF, TAB, NUL, ESC, DEL, C1, ...). */
const withoutControlCharacters = <I, R>(self: Schema.Schema<string, I, R>) =>
  self.pipe(
    Schema.filter((s) => (CONTROL.test(s) ? "must not contain control characters (such as CR, LF or TAB)" : true)),
  );

/** A display name: trimmed, then 1–100 characters, none of them a control character. */
export const Name = Schema.Trim.pipe(
  Schema.minLength(1, { message: () => "must not be empty" }),
  Schema.maxLength(100, { message: () => "must be at most 100 characters" }),
  withoutControlCharacters,
  Schema.annotations({
    description: "1–100 characters after trimming, no control characters",
    // The JSON Schema of the encoded side (what a client sends), which effect cannot derive through Trim.
    jsonSchema: {
      type: "string",
      pattern: NAME_PATTERN.source,
      description: "1–100 characters after trimming, no control characters",
    },
  }),
);

/** A short display title: at most 64 characters, none of them a control character. */
export const Title = Schema.String.pipe(
  Schema.maxLength(64, { message: () => "must be at most 64 characters" }),
  withoutControlCharacters,
  Schema.annotations({ jsonSchema: { pattern: "^[^\\u0000-\\u001f\\u007f-\\u009f]*$", maxLength: 64 } }),
);

/** A description or instructions text: at most 10,000 characters. */
export const LongText = Schema.String.pipe(
  Schema.maxLength(10_000, { message: () => "must be at most 10000 characters" }),
);

/** UTF-8 size of a string in bytes. */
export const utf8Bytes = (value: string): number => Buffer.byteLength(value, "utf8");

/** A 32-bit signed integer. */
export const Int32 = Schema.Int.pipe(
  Schema.between(-2147483648, 2147483647, { message: () => "must be a 32-bit integer" }),
  Schema.annotations({ jsonSchema: { type: "integer", format: "int32", minimum: -2147483648, maximum: 2147483647 } }),
);

/** An RFC 3339 date-time string with a time zone. */
export const DateTimeString = Schema.String.pipe(
  Schema.filter(
    (s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(s) && !Number.isNaN(Date.parse(s)),
    {
      message: () => "must be an RFC 3339 date-time such as 2030-01-01T00:00:00Z",
      jsonSchema: { format: "date-time", description: "RFC 3339 date-time with a time zone" },
    },
  ),
);

/** A JSON object of any content. */
export const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  jsonSchema: { type: "object", additionalProperties: true, description: "a JSON object" },
});
export type JsonObject = typeof JsonObject.Type;

/**
 * Any JSON value. effect renders `Schema.Unknown` with an `$id` of its own, which would repeat across a
 * document; this says the same in plain JSON Schema.
 */
export const AnyJsonValue = Schema.Unknown.annotations({
  jsonSchema: {
    type: ["null", "boolean", "object", "array", "number", "string"],
    additionalProperties: true,
    items: true,
  },
});

// Fields of records as the service writes them. Records are produced, never decoded, so these only describe
// the wire (for the OpenAPI document and the typed client).

/** A timestamp as the service writes it: RFC 3339 UTC with millisecond precision (docs/api-rules.md §12). */
export const Timestamp = Schema.String.annotations({
  jsonSchema: { format: "date-time", description: "RFC 3339 UTC timestamp with milliseconds" },
});

/** An int32 as the service writes it. */
export const WireInt32 = Schema.Number.annotations({ jsonSchema: { type: "integer", format: "int32" } });

/** A non-negative int64 as the service writes it (within JavaScript's safe integers). */
export const WireInt64 = Schema.Number.annotations({
  jsonSchema: { type: "integer", format: "int64", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
});
