import { Data } from "effect";

/** A compare-and-set lost a race with another writer; the transaction is retried from the start. */
export class StaleRead extends Data.TaggedError("StaleRead")<{ readonly conditional: boolean }> {}
