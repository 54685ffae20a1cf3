/**
 * @mcpsm/storage-contract: the vitest suite every adapter of the @mcpsm/domain storage port runs, so the
 * in-memory and PostgreSQL adapters keep exactly the same semantics. Call `storageContract` from a test file.
 */
export * from "./fixtures.js";
export type { Harness, Seed } from "./harness.js";
export { type ContractSubject, storageContract } from "./storage-contract.js";
