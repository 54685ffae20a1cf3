import { Effect, Either, Schema } from "effect";
import type { InvalidArgument } from "../errors/domain-errors.js";
import {
  FULL_REPORT_VALUES,
  invalid,
  jsonValueCount,
  parseProblems,
  unstorableTextProblems,
} from "../validation/decode-write.js";
import { optional } from "../validation/optional-field.js";
import { markDecoded } from "../validation/validate-input.js";
import type { RawQuery } from "../wire/provider-list-query.js";
import { ServerExportDocument } from "./export-schema.js";

// The wire of POST /servers/import: the body is the export document itself (no envelope), the query
// `dryRun=true|false`.

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Decodes an import body as a `ServerExportDocument`: unknown fields are refused, and every problem is
 * reported with its path in the document (`providers[0].tools[1].name`); a body of more than
 * FULL_REPORT_VALUES values gets its first problem only, as every write body.
 */
export const decodeServerExportDocument = (body: unknown): Effect.Effect<ServerExportDocument, InvalidArgument> => {
  if (!isPlainObject(body))
    return Effect.fail(invalid([{ path: "", message: "must be a server export document (a JSON object)" }]));
  // Object.fromEntries defines own properties, so a "__proto__" key is an unknown field, not a prototype.
  const input = Object.fromEntries(Object.entries(body));
  const unstorable = unstorableTextProblems("", input);
  if (unstorable.length > 0) return Effect.fail(invalid(unstorable));
  const first = Schema.decodeUnknownEither(ServerExportDocument, { errors: "first", onExcessProperty: "error" })(input);
  const decoded =
    Either.isRight(first) || jsonValueCount(input, FULL_REPORT_VALUES) > FULL_REPORT_VALUES
      ? first
      : Schema.decodeUnknownEither(ServerExportDocument, { errors: "all", onExcessProperty: "error" })(input);
  return Either.isLeft(decoded)
    ? Effect.fail(invalid(parseProblems("", decoded.left)))
    : Effect.succeed(markDecoded(decoded.right));
};

/** The query of `POST /servers/import`. */
export const ServerImportParameters = Schema.Struct({
  dryRun: optional(
    Schema.Literal("true", "false").annotations({
      message: () => "must be true or false",
      jsonSchema: {
        type: "boolean",
        default: false,
        description: "true: run the import, answer what it would do (200) and store nothing",
      },
    }),
  ),
});

const decodeParameters = Schema.decodeUnknownEither(ServerImportParameters, {
  errors: "all",
  onExcessProperty: "error",
});

/** Decodes the query of `POST /servers/import`: `dryRun` given at most once as true or false, nothing else. */
export const decodeServerImportQuery = (
  query: RawQuery,
): Effect.Effect<{ readonly dryRun: boolean }, InvalidArgument> => {
  const present = Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined));
  const decoded = decodeParameters(present);
  if (Either.isRight(decoded)) return Effect.succeed({ dryRun: decoded.right.dryRun === "true" });
  return Effect.fail(
    invalid(
      parseProblems("", decoded.left).map((problem) =>
        problem.path === "dryRun"
          ? { ...problem, message: "must be true or false" }
          : { ...problem, message: "unknown query parameter" },
      ),
    ),
  );
};
