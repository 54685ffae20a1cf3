import type { Storage } from "@mcpsm/domain";
import { MemoryStorageLive } from "@mcpsm/storage-memory";
import type { Layer } from "effect";

/**
 * The one switch point of the HTTP suite's store: every service the suite starts (harness.ts) takes its
 * storage layer from here. Today that is the in-memory store; the PostgreSQL run will choose its layer here
 * (on an environment variable) and nothing else in the suite changes.
 *
 * What a layer returned here must give:
 * - an EMPTY store of its own on every call (for PostgreSQL: a fresh database or schema per call). Files run
 *   in parallel and some tests list every provider a tenant can see, which includes every PUBLIC provider in
 *   the store; records left by other files would break them.
 * - its resources tied to the layer's scope (acquireRelease): the harness builds the layer once per service
 *   and releases it when the service stops. Building may fail (a database that cannot be reached).
 */
export const testStorage = (): Layer.Layer<Storage, unknown> => MemoryStorageLive;
