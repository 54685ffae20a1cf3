import { Effect, Either, type Schema } from "effect";
import type { FieldProblem, InvalidArgument } from "../../src/errors/domain-errors.js";
import { decodeEnvelope } from "../../src/validation/decode-write.js";

/** Runs `decodeEnvelope` synchronously and returns its outcome as an Either. */
export const decode = <A, I>(
  envelope: string,
  schema: Schema.Schema<A, I>,
  ignored: ReadonlyArray<string>,
  body: unknown,
): Either.Either<A, InvalidArgument> => Effect.runSync(Effect.either(decodeEnvelope(envelope, schema, ignored, body)));

/** The decoded value; fails the test (with the problems listed) when decoding failed. */
export const expectRight = <A>(result: Either.Either<A, InvalidArgument>): A => {
  if (Either.isLeft(result)) throw new Error(`expected success, got ${JSON.stringify(result.left.errors)}`);
  return result.right;
};

/** The problems of a failed decode; fails the test when decoding succeeded. */
export const expectProblems = <A>(result: Either.Either<A, InvalidArgument>): ReadonlyArray<FieldProblem> => {
  if (Either.isRight(result)) throw new Error(`expected a failure, got ${JSON.stringify(result.right)}`);
  if (result.left._tag !== "InvalidArgument") throw new Error(`expected InvalidArgument, got ${result.left._tag}`);
  return result.left.errors;
};

/** The paths of a failed decode's problems. */
export const problemPaths = <A>(result: Either.Either<A, InvalidArgument>): ReadonlyArray<string> =>
  expectProblems(result).map((p) => p.path);

/** A write schema of any record, for tables of cases over several records. */
// biome-ignore lint/suspicious/noExplicitAny: heterogeneous table of schemas; each is only passed to decode().
export type AnyWriteSchema = Schema.Schema<any, any>;
