import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

// V8 gives heap pages back to the system only in a collection that aims to reduce memory; its `gc` function
// is what asks for one. Exposing it costs nothing until it is called, and it is fetched from a fresh context
// so that the global scope of the service stays as it was.

/** The options V8's `gc` extension accepts (`flavor: "last-resort"`: collect everything, shrink the heap). */
interface GcOptions {
  readonly type: "major" | "minor";
  readonly execution: "sync" | "async";
  readonly flavor: "regular" | "last-resort";
}

let gc: ((options: GcOptions) => void) | undefined;

/**
 * Runs a full, memory-reducing garbage collection now, synchronously: everything collectable is collected,
 * the heap compacted, the young generation shrunk and pooled pages unmapped. Tens to hundreds of
 * milliseconds, during which the process does nothing else.
 */
export const collectAllGarbage = (): void => {
  if (gc === undefined) {
    setFlagsFromString("--expose-gc");
    gc = runInNewContext("gc") as (options: GcOptions) => void;
  }
  gc({ type: "major", execution: "sync", flavor: "last-resort" });
};
