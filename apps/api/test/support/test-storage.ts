import type { Storage } from "@mcpsm/domain";
import { MemoryStorageLive } from "@mcpsm/storage-memory";
import type { Layer } from "effect";

/**
 * The one switch point of the HTTP suite's store: every service the suite starts takes its storage layer
 * from here. Today that is the in-memory store; the PostgreSQL run will choose its layer here (on an
 * environment variable) and nothing else in the suite changes. The layer may fail to build (a database
 * that cannot be reached) and may hold resources: the harness builds it once per service and releases it
 * when the service stops.
 */
export const testStorage = (): Layer.Layer<Storage, unknown> => MemoryStorageLive;
