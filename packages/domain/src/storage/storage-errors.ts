import { Data } from "effect";

/** The kinds of stored record, as named in storage errors. */
export type RecordKind =
  | "provider"
  | "tool"
  | "prompt"
  | "resource"
  | "server"
  | "variable"
  | "serverToken"
  | "upstreamConnection"
  | "gitConnection"
  | "callerValue";

/** A write broke a uniqueness constraint (a name already taken in its scope). */
export class UniqueViolation extends Data.TaggedError("UniqueViolation")<{
  readonly kind: RecordKind;
  readonly name: string;
}> {}

/** A write broke a reference constraint: it points at a missing record, or deletes a referenced one. */
export class ReferenceViolation extends Data.TaggedError("ReferenceViolation")<{
  readonly kind: RecordKind;
  readonly detail: string;
}> {}
