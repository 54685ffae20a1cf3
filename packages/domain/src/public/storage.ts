// @mcpsm/domain/storage: the storage port, what an adapter implements (rows in, rows out, uniqueness and
// reference breaches reported as typed errors). Adapters run the @mcpsm/storage-contract suite.

// Rows are schemas as well as types, so an adapter can decode what its database returns.
export {
  PromptRow,
  ProviderRow,
  type ProviderWithTools,
  ResourceRow,
  type ServerGraph,
  ServerProviderLink,
  ServerRow,
  ServerTokenRow,
  ToolRow,
  VariableRow,
} from "../storage/rows.js";
export { type RecordKind, ReferenceViolation, UniqueViolation } from "../storage/storage-errors.js";
export {
  type ProviderCursor,
  type ProviderPage,
  type ProviderSearch,
  type SecretCursor,
  type SecretKind,
  type ServerReference,
  Storage,
  type StorageTx,
  type StoredSecret,
} from "../storage/storage-port.js";
