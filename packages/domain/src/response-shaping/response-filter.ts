import { Schema } from "effect";

// The response-shaping fields of docs/api-rules.md §19: a tool's `responseFilter` and a server's
// `maxResultTokens`. Whether an expression compiles is not a schema question (the engines are not the
// domain's): the `ResponseShaping` port answers it on every write that carries a filter.

/** The languages a tool's `responseFilter` may be written in. */
export const RESPONSE_FILTER_LANGUAGES = ["jmespath", "jq"] as const;

/** The longest filter expression accepted on write. */
export const MAX_FILTER_EXPRESSION_LENGTH = 4096;

/** A tool's response filter: a JMESPath (Community edition) or jq expression applied to its JSON answers. */
export const ResponseFilter = Schema.Struct({
  language: Schema.Literal(...RESPONSE_FILTER_LANGUAGES).annotations({
    description: "jmespath (JMESPath Community edition) or jq",
  }),
  expression: Schema.String.pipe(
    Schema.minLength(1, { message: () => "must not be empty" }),
    Schema.maxLength(MAX_FILTER_EXPRESSION_LENGTH, {
      message: () => `must be at most ${MAX_FILTER_EXPRESSION_LENGTH} characters`,
    }),
  ),
}).annotations({
  identifier: "ResponseFilter",
  description:
    "applied to the upstream's JSON answer before it reaches the caller, within a time and memory budget; the declared outputSchema follows it",
});
export type ResponseFilter = typeof ResponseFilter.Type;

/** A server's `maxResultTokens` when it sets none (o200k_base tokens). */
export const DEFAULT_MAX_RESULT_TOKENS = 25_000;

/** Bounds of `maxResultTokens`. */
export const MAX_RESULT_TOKENS_RANGE = { min: 1000, max: 1_000_000 } as const;

/** The most o200k_base tokens one tool result of a server may hold. */
export const MaxResultTokens = Schema.Int.pipe(
  Schema.between(MAX_RESULT_TOKENS_RANGE.min, MAX_RESULT_TOKENS_RANGE.max, {
    message: () => `must be an integer from ${MAX_RESULT_TOKENS_RANGE.min} to ${MAX_RESULT_TOKENS_RANGE.max}`,
  }),
  Schema.annotations({
    description:
      "the most o200k_base tokens a tool result of this server holds; a larger answer is cut at whole array items and properties (default 25000)",
    jsonSchema: { type: "integer", minimum: MAX_RESULT_TOKENS_RANGE.min, maximum: MAX_RESULT_TOKENS_RANGE.max },
  }),
);
