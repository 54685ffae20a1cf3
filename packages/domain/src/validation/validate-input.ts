import { Effect, Either, Schema } from "effect";
import type { InvalidArgument } from "../errors/domain-errors.js";
import { decodePathId, invalid, parseProblems, unstorableTextProblems } from "./decode-write.js";

/**
 * The values the domain's own wire decoders produced. They passed the same rules (and a JSON Schema costs
 * milliseconds to compile), so the use case does not check them a second time. Held weakly: a value is
 * forgotten with its request.
 */
const decoded = new WeakSet<object>();

/** Records that `value` came out of a wire decoder, so `validateInput` accepts it as checked. */
export const markDecoded = <A extends object>(value: A): A => {
  decoded.add(value);
  return value;
};

/**
 * Checks a typed use-case input against the rules of its schema (the decoded side: lengths, patterns,
 * JSON Schemas, no unknown field) and that every text can be stored, so a caller that skipped the wire
 * decoders still gets InvalidArgument instead of a bad record. A value a wire decoder returned is taken as
 * checked (its fields are readonly). Problems are located under `root`, as the
 * wire decoders locate them.
 */
export const validateInput = <A, I>(
  root: string,
  schema: Schema.Schema<A, I>,
  value: A,
): Effect.Effect<A, InvalidArgument> => {
  if (typeof value === "object" && value !== null && decoded.has(value)) return Effect.succeed(value);
  const unstorable = unstorableTextProblems(root, value);
  if (unstorable.length > 0) return Effect.fail(invalid(unstorable));
  const checked = Schema.validateEither(schema, { errors: "all", onExcessProperty: "error" })(value);
  return Either.isLeft(checked) ? Effect.fail(invalid(parseProblems(root, checked.left))) : Effect.succeed(value);
};

/** Checks the record ids of a use-case input, each under its wire name (`id`, `toolID`, ...), in order. */
export const validateIds = (ids: ReadonlyArray<readonly [wireName: string, value: string]>) =>
  Effect.forEach(ids, ([name, value]) => decodePathId(name, value), { discard: true });
