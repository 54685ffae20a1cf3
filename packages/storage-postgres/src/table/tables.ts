import {
  ApprovalRow,
  UpstreamTaskRow,
  AuditEventRow,
  CallerValueFormRow,
  CallerValueRow,
  OAuthServerRecordRow,
  GitConnectionRow,
  GitSyncRow,
  PromptRow,
  ProviderRow,
  ResourceRow,
  ServerRevisionRow,
  ServerRow,
  ServerTokenRow,
  ToolRow,
  UpstreamAuthorizationRow,
  UpstreamConnectionRow,
  VariableRow,
} from "@mcpsm/domain/storage";
import type { MetadataStorage } from "@mikro-orm/core";
import {
  CallerValueEntity,
  CallerValueFormEntity,
  PromptEntity,
  ProviderEntity,
  ResourceEntity,
  GitSyncEntity,
  ServerEntity,
  ServerTokenEntity,
  ToolEntity,
  UpstreamAuthorizationEntity,
  UpstreamConnectionEntity,
  VariableEntity,
} from "../schema/entities.js";
import { ApprovalEntity } from "../schema/approval-entity.js";
import { UpstreamTaskEntity } from "../schema/upstream-task-entity.js";
import { AuditEventEntity } from "../schema/audit-event-entity.js";
import { OAuthServerRecordEntity } from "../schema/oauth-server-record-entity.js";
import { GitConnectionEntity } from "../schema/git-entities.js";
import { ServerRevisionEntity } from "../schema/server-revision-entity.js";
import { describeGraphs } from "./graphs.js";
import { describeTable } from "./table.js";

/** The tables of the stored records, each its entity's metadata paired with the domain's row schema. */
export const describeRecordTables = (metadata: MetadataStorage) => ({
  providers: describeTable(metadata.get(ProviderEntity), ProviderRow),
  tools: describeTable(metadata.get(ToolEntity), ToolRow),
  prompts: describeTable(metadata.get(PromptEntity), PromptRow),
  resources: describeTable(metadata.get(ResourceEntity), ResourceRow),
  variables: describeTable(metadata.get(VariableEntity), VariableRow),
  // A server's links (and its tools' settings) live in the server_* link tables (graphs.ts, tx/servers.ts).
  servers: describeTable(metadata.get(ServerEntity), ServerRow, [
    "providers",
    "resourceIds",
    "promptIds",
    "toolSettings",
  ]),
  serverTokens: describeTable(metadata.get(ServerTokenEntity), ServerTokenRow),
  auditEvents: describeTable(metadata.get(AuditEventEntity), AuditEventRow),
  upstreamConnections: describeTable(metadata.get(UpstreamConnectionEntity), UpstreamConnectionRow),
  upstreamAuthorizations: describeTable(metadata.get(UpstreamAuthorizationEntity), UpstreamAuthorizationRow),
  oauthServerRecords: describeTable(metadata.get(OAuthServerRecordEntity), OAuthServerRecordRow),
  gitConnections: describeTable(metadata.get(GitConnectionEntity), GitConnectionRow),
  gitSyncs: describeTable(metadata.get(GitSyncEntity), GitSyncRow),
  serverRevisions: describeTable(metadata.get(ServerRevisionEntity), ServerRevisionRow),

  callerValues: describeTable(metadata.get(CallerValueEntity), CallerValueRow),
  callerValueForms: describeTable(metadata.get(CallerValueFormEntity), CallerValueFormRow),

  approvals: describeTable(metadata.get(ApprovalEntity), ApprovalRow),
  upstreamTasks: describeTable(metadata.get(UpstreamTaskEntity), UpstreamTaskRow),
});

/**
 * Everything the adapter's statements are built from, derived once from the discovered mapping: the record
 * tables and the nested reads over them.
 */
export const describeTables = (metadata: MetadataStorage) => {
  const tables = describeRecordTables(metadata);
  return { ...tables, graphs: describeGraphs(tables) };
};

export type Tables = ReturnType<typeof describeTables>;
