import { Effect, Either, Schema } from "effect";
import type { InvalidArgument } from "../errors/domain-errors.js";
import { ProviderListParameters, type ProviderListQuery } from "../provider/provider-schema.js";
import { invalid, parseProblems } from "../validation/decode-write.js";
import { markDecoded } from "../validation/validate-input.js";

/** Query parameters as an HTTP framework hands them over (a repeated parameter is an array). */
export type RawQuery = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>;

const decodeParameters = Schema.decodeUnknownEither(ProviderListParameters, {
  errors: "all",
  onExcessProperty: "error",
});
const KNOWN: ReadonlyArray<string> = Object.keys(ProviderListParameters.fields);

/**
 * Decodes the query string of `GET /providers` with `ProviderListParameters`: every bad, repeated or unknown
 * parameter is reported at once, located by its name.
 */
export const decodeProviderListQuery = (query: RawQuery): Effect.Effect<ProviderListQuery, InvalidArgument> => {
  const present = Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined));
  const decoded = decodeParameters(present);
  if (Either.isRight(decoded)) return Effect.succeed(markDecoded(decoded.right));
  return Effect.fail(
    invalid(
      parseProblems("", decoded.left).map((problem) =>
        KNOWN.includes(problem.path) ? problem : { ...problem, message: "unknown query parameter" },
      ),
    ),
  );
};
