import { Schema } from "effect";

/** A display name: trimmed, then 1–100 characters. */
export const Name = Schema.Trim.pipe(
  Schema.minLength(1, { message: () => "must not be empty" }),
  Schema.maxLength(100, { message: () => "must be at most 100 characters" }),
  Schema.annotations({ description: "1–100 characters after trimming" }),
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
);

/** An RFC 3339 date-time string with a time zone. */
export const DateTimeString = Schema.String.pipe(
  Schema.filter(
    (s) =>
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(s) && !Number.isNaN(Date.parse(s)),
    { message: () => "must be an RFC 3339 date-time such as 2030-01-01T00:00:00Z" },
  ),
  Schema.annotations({ format: "date-time" } as Record<string, unknown>),
);

/** A JSON object of any content. */
export const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown });
export type JsonObject = typeof JsonObject.Type;
