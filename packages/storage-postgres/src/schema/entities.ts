import { AuditEventEntity } from "./audit-event-entity.js";
import { GitConnectionEntity } from "./git-entities.js";
import { OAuthServerRecordEntity } from "./oauth-server-record-entity.js";
import { GitSyncEntity } from "./git-sync-entity.js";
import {
  PromptEntity,
  ProviderCountEntity,
  ProviderEntity,
  ProviderGenerationEntity,
  ResourceEntity,
  ToolEntity,
} from "./provider-entities.js";
import {
  ServerCountEntity,
  ServerEntity,
  ServerPromptEntity,
  ServerProviderEntity,
  ServerResourceEntity,
  ServerTokenEntity,
  ServerToolEntity,
} from "./server-entities.js";
import { UpstreamAuthorizationEntity, UpstreamConnectionEntity } from "./upstream-connection-entities.js";
import { VariableEntity } from "./variable-entity.js";
import { ServerRevisionEntity } from "./server-revision-entity.js";

import { ApprovalEntity } from "./approval-entity.js";
import { UpstreamTaskEntity } from "./upstream-task-entity.js";
import { CallerValueEntity, CallerValueFormEntity } from "./caller-value-entities.js";
import {
  ToolCallEntity,
  ToolCallHourlyUsageEntity,
  ToolCallToolUsageEntity,
  ToolCallUsageEntity,
} from "./tool-call-entities.js";

// The relational mapping of the stored records, and the one description of each table: the committed
// migrations are generated from it (a test proves that migrating produces exactly this: an empty schema
// diff), and the adapter derives its SQL from its metadata (src/table): the columns an insert writes and an
// update sets, and the JSON object a read builds, which the domain's row schema then decodes. So a property
// is named as the field of the domain row it stores (`baseURL`), and a reference `provider` stores the
// row's `providerId`. The entity types never reach the domain, which stays free of ORM concerns.
//
// Conventions:
// - ids are `text COLLATE "C"`: byte order, so "creation time, then id" sorts exactly as the in-memory
//   adapter's string comparison does, whatever the database's default collation is.
// - timestamps are `timestamptz(3)`: the domain keeps millisecond precision.
// - JSON documents (schemas, headers, scopes, annotations, prompt arguments and messages) are `jsonb`.
// - every reference is a foreign key. Children of a provider go with it (ON DELETE CASCADE); the links of
//   a server go with the server, but hold what they point at (ON DELETE RESTRICT), so deleting a provider,
//   tool, prompt or resource that a server uses fails in the database itself.

// Each concept's entities are a file of this folder; this one gathers them.

export { GitSyncEntity } from "./git-sync-entity.js";
export {
  PromptEntity,
  ProviderCountEntity,
  ProviderEntity,
  ProviderGenerationEntity,
  ResourceEntity,
  ToolEntity,
} from "./provider-entities.js";
export {
  ServerCountEntity,
  ServerEntity,
  ServerPromptEntity,
  ServerProviderEntity,
  ServerResourceEntity,
  ServerTokenEntity,
  ServerToolEntity,
} from "./server-entities.js";
export { UpstreamAuthorizationEntity, UpstreamConnectionEntity } from "./upstream-connection-entities.js";
export { VariableEntity } from "./variable-entity.js";
export { CallerValueEntity, CallerValueFormEntity } from "./caller-value-entities.js";

/** Every entity of the schema, in dependency order. */
export const ENTITIES = [
  ProviderEntity,
  ToolEntity,
  PromptEntity,
  ResourceEntity,
  VariableEntity,
  GitConnectionEntity,
  ServerEntity,
  ServerProviderEntity,
  ServerToolEntity,
  ServerResourceEntity,
  ServerPromptEntity,
  ServerTokenEntity,
  AuditEventEntity,
  ProviderCountEntity,
  ProviderGenerationEntity,
  ServerCountEntity,
  UpstreamConnectionEntity,
  UpstreamAuthorizationEntity,
  OAuthServerRecordEntity,
  GitSyncEntity,
  ServerRevisionEntity,

  ToolCallEntity,
  ToolCallUsageEntity,
  ToolCallHourlyUsageEntity,
  ToolCallToolUsageEntity,
  CallerValueEntity,
  CallerValueFormEntity,
  ApprovalEntity,
  UpstreamTaskEntity,
] as const;
