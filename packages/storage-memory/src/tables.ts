import type {
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

/**
 * The whole store: one map per record kind, keyed by id. Server links live inside the ServerRow.
 * Stored rows are private clones that are never changed in place (a write replaces the map entry), so
 * copying the maps is enough to snapshot the store.
 */
export interface Tables {
  readonly providers: Map<string, ProviderRow>;
  readonly tools: Map<string, ToolRow>;
  readonly prompts: Map<string, PromptRow>;
  readonly resources: Map<string, ResourceRow>;
  readonly variables: Map<string, VariableRow>;
  readonly servers: Map<string, ServerRow>;
  readonly serverTokens: Map<string, ServerTokenRow>;
  readonly upstreamConnections: Map<string, UpstreamConnectionRow>;
  readonly upstreamAuthorizations: Map<string, UpstreamAuthorizationRow>;
  readonly gitConnections: Map<string, GitConnectionRow>;
  /** The git outbox, keyed by server id. */
  readonly gitSyncs: Map<string, GitSyncRow>;
  /**
   * The audit events, oldest first. The array itself is never changed: a write replaces it (copy on
   * write), so copying the tables for a transaction does not copy the whole trail.
   */
  auditEvents: ReadonlyArray<AuditEventRow>;
  /** The records of the service's OAuth authorization server, by their `<model>:<id>`. */
  readonly oauthServerRecords: Map<string, OAuthServerRecordRow>;
  /** Each server's revisions, oldest first; an entry's array is replaced on write, never changed. */
  readonly serverRevisions: Map<string, ReadonlyArray<ServerRevisionRow>>;

  /** docs/api-rules.md §23: callers' own values of variables, and the forms under way (keyed by id digest). */
  readonly callerValues: Map<string, CallerValueRow>;
  readonly callerValueForms: Map<string, CallerValueFormRow>;

  /** Calls waiting for approval (docs/api-rules.md §20). */
  readonly approvals: Map<string, ApprovalRow>;
  /** Tasks following long-running upstream operations (docs/api-rules.md §22). */
  readonly upstreamTasks: Map<string, UpstreamTaskRow>;
}

/** An empty store. */
export const emptyTables = (): Tables => ({
  providers: new Map(),
  tools: new Map(),
  prompts: new Map(),
  resources: new Map(),
  variables: new Map(),
  servers: new Map(),
  serverTokens: new Map(),
  upstreamConnections: new Map(),
  upstreamAuthorizations: new Map(),
  gitConnections: new Map(),
  gitSyncs: new Map(),
  auditEvents: [],
  oauthServerRecords: new Map(),
  serverRevisions: new Map(),

  callerValues: new Map(),
  callerValueForms: new Map(),

  approvals: new Map(),
  upstreamTasks: new Map(),
});

/** A snapshot a transaction may write to without touching `tables` (rows are shared, see `Tables`). */
export const copyTables = (tables: Tables): Tables => ({
  providers: new Map(tables.providers),
  tools: new Map(tables.tools),
  prompts: new Map(tables.prompts),
  resources: new Map(tables.resources),
  variables: new Map(tables.variables),
  servers: new Map(tables.servers),
  serverTokens: new Map(tables.serverTokens),
  upstreamConnections: new Map(tables.upstreamConnections),
  upstreamAuthorizations: new Map(tables.upstreamAuthorizations),
  gitConnections: new Map(tables.gitConnections),
  gitSyncs: new Map(tables.gitSyncs),
  auditEvents: tables.auditEvents,
  oauthServerRecords: new Map(tables.oauthServerRecords),
  serverRevisions: new Map(tables.serverRevisions),

  callerValues: new Map(tables.callerValues),
  callerValueForms: new Map(tables.callerValueForms),

  approvals: new Map(tables.approvals),
  upstreamTasks: new Map(tables.upstreamTasks),
});
