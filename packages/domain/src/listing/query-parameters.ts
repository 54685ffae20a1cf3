import { Effect, Either, Schema } from "effect";
import type { InvalidArgument } from "../errors/domain-errors.js";
import { invalid, parseProblems, unstorableText } from "../validation/decode-write.js";
import { markDecoded } from "../validation/validate-input.js";

// The pieces every list route's query schema is built from (docs/api-rules.md §11), and the one decoder
// that turns a parsed query string into the typed query a list use case takes. A list route declares one
// `Schema.Struct` of its parameters (its OpenAPI parameters come from the same struct) and decodes with
// `queryDecoder(thatStruct)`.

/** Query parameters as an HTTP framework hands them over (a repeated parameter is an array). */
export type RawQuery = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>;

/** One query parameter as an HTTP framework hands it over: a string, given once, that can be stored. */
export const QueryValue = Schema.String.annotations({ message: () => "must be given once" }).pipe(
  Schema.filter((value) => unstorableText(value) ?? true),
);

/** A page size: a whole number, at least 1. */
const PageSize = Schema.Int.annotations({ message: () => "must be a whole number" }).pipe(
  Schema.greaterThanOrEqualTo(1, { message: () => "must be at least 1" }),
);

/** A whole number written in decimal, as in `limit=20` (no sign but `-`, fraction or exponent). */
export const PageSizeFromQuery = Schema.compose(
  Schema.transform(
    QueryValue.pipe(Schema.pattern(/^-?\d{1,15}$/, { message: () => "must be a whole number" })),
    Schema.Number,
    { strict: true, decode: Number, encode: String },
  ),
  PageSize,
);

/** A page token as a listing signs it (`<payload>.<mac>`), or empty for the first page. */
export const PageTokenFromQuery = QueryValue.pipe(
  Schema.pattern(/^(?:[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)?$/, { message: () => "is not a nextToken of this listing" }),
);

/** A query value that must be one of a literal's members. */
export const literalFromQuery = <const L extends readonly [string, ...Array<string>]>(literals: L, message: string) =>
  Schema.compose(
    QueryValue.pipe(Schema.filter((value) => literals.includes(value) || message)),
    Schema.Literal(...literals),
    { strict: false },
  );

/** A filter value that is empty ("no filter") or passes `isValid`, else fails with `message`. */
export const optionalFilterFromQuery = (isValid: (value: string) => boolean, message: string) =>
  QueryValue.pipe(Schema.filter((value) => value === "" || isValid(value) || message));

/**
 * The decoder of one list route's query string: every bad, repeated or unknown parameter is reported at
 * once, located by its name. What needs more than the query (a page token's signature) the use case checks.
 * `unknown: "ignore"` leaves other parameters unread instead, for a route that has always ignored them.
 */
export const queryDecoder = <A extends object, I>(
  parameters: Schema.Schema<A, I> & { readonly fields: Schema.Struct.Fields },
  options: { readonly unknown: "refuse" | "ignore" } = { unknown: "refuse" },
) => {
  const decode = Schema.decodeUnknownEither(parameters, { errors: "all", onExcessProperty: "error" });
  const known: ReadonlyArray<string> = Object.keys(parameters.fields);
  const read = (name: string) => options.unknown === "refuse" || known.includes(name);
  return (query: RawQuery): Effect.Effect<A, InvalidArgument> => {
    const present = Object.fromEntries(
      Object.entries(query).filter(([name, value]) => value !== undefined && read(name)),
    );
    const decoded = decode(present);
    if (Either.isRight(decoded)) return Effect.succeed(markDecoded(decoded.right));
    return Effect.fail(
      invalid(
        parseProblems("", decoded.left).map((problem) =>
          known.includes(problem.path) ? problem : { ...problem, message: "unknown query parameter" },
        ),
      ),
    );
  };
};
