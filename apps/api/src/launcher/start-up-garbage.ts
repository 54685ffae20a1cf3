import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

// Start-up (loading the modules, opening and migrating the store, building the OpenAPI document) leaves
// garbage and a young generation grown to its maximum, and V8 gives pages back only when a collection that
// aims to reduce memory runs, which an idle service may not reach for minutes: the embedded store's idle RSS
// is measured (and judged) in that state (docs/performance.md, "Embedded store"). One memory-reducing full
// collection once start-up is over returns them. V8's `gc` function is what asks for one: exposing it costs
// nothing until it is called, and it is fetched from a fresh context so that the global scope of the
// service stays as it was.

/** The options V8's `gc` extension accepts (`flavor: "last-resort"`: collect everything, shrink the heap). */
interface GcOptions {
  readonly type: "major" | "minor";
  readonly execution: "sync" | "async";
  readonly flavor: "regular" | "last-resort";
}

let gc: ((options: GcOptions) => void) | undefined;

/**
 * Runs a full, memory-reducing garbage collection now (synchronously, tens of milliseconds on a service
 * that has just started). Call it when start-up is over, before the service has work to do.
 */
export const collectStartUpGarbage = (): void => {
  if (gc === undefined) {
    setFlagsFromString("--expose-gc");
    gc = runInNewContext("gc") as (options: GcOptions) => void;
  }
  gc({ type: "major", execution: "sync", flavor: "last-resort" });
};
