/**
 * @mcpsm/storage-memory: the storage port of @mcpsm/domain kept in process memory, with the semantics the
 * PostgreSQL adapter has (both run the @mcpsm/storage-contract suite). For tests and local runs.
 */
export { MemoryStorageLive, makeMemoryStorage } from "./memory-storage.js";
