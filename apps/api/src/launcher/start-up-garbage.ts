import { collectAllGarbage } from "./memory-reducing-collection.js";

// Start-up (loading the modules, opening and migrating the store, building the OpenAPI document) leaves
// garbage and a young generation grown to its maximum, and V8 gives pages back only when a collection that
// aims to reduce memory runs, which an idle service may not reach for minutes: the embedded store's idle RSS
// is measured (and judged) in that state (docs/performance.md, "Embedded store"). One memory-reducing full
// collection once start-up is over returns them.

/**
 * Runs a full, memory-reducing garbage collection now (synchronously, tens of milliseconds on a service
 * that has just started). Call it when start-up is over, before the service has work to do.
 */
export const collectStartUpGarbage = (): void => collectAllGarbage();
