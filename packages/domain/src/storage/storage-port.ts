import { Context, type Effect } from "effect";
import type { ApprovalRow, ApprovalStatus } from "../approval/approval-schema.js";
import type { UpstreamTaskRow, UpstreamTaskStatus } from "../upstream-task/upstream-task-row.js";
import type { AuditEventRow } from "../audit/audit-schema.js";
import type { CallLogStore } from "./call-log-port.js";
import type { CallerValueStore } from "../caller-value/caller-value-store.js";
import type { Unavailable } from "../errors/domain-errors.js";
import type { OAuthServerRecordRow } from "../oauth-server/oauth-server-record.js";
import type {
  GitConnectionRow,
  GitSyncChanges,
  GitSyncClaim,
  GitSyncDue,
  GitSyncOutcome,
  GitSyncRow,
} from "../git-connection/git-connection-rows.js";
import type { ServerRevisionPage, ServerRevisionRow, ServerRevisionSearch } from "../revision/revision-rows.js";
import type {
  PromptRow,
  ProviderRow,
  ProvidersAndTools,
  ProviderWithTools,
  ResourceRow,
  ServerGraph,
  ServerRow,
  ServerTokenRow,
  UpstreamAuthorizationRow,
  UpstreamConnectionRow,
  ToolRow,
  VariableRow,
} from "./rows.js";
import type { ReferenceViolation, UniqueViolation } from "./storage-errors.js";
import type {
  AuditPage,
  AuditSearch,
  ProviderPage,
  ProviderSearch,
  SecretCursor,
  StoredSecret,
  ToolPage,
  ToolSearch,
} from "./storage-queries.js";

export type {
  AuditCursor,
  AuditPage,
  AuditSearch,
  ProviderCursor,
  ProviderPage,
  ProviderSearch,
  SecretCursor,
  SecretKind,
  StoredSecret,
  ToolPage,
  ToolSearch,
} from "./storage-queries.js";

/** Which record a server may reference. */
export type ServerReference =
  | { readonly kind: "provider"; readonly id: string }
  | { readonly kind: "tool"; readonly id: string }
  | { readonly kind: "prompt"; readonly id: string }
  | { readonly kind: "resource"; readonly id: string }
  | { readonly kind: "gitConnection"; readonly id: string };

type Op<A, E = never> = Effect.Effect<A, E>;

/** Transaction-scoped advisory locks. */
export interface LockStore {
  /**
   * Holds an exclusive lock on `key` until the transaction ends, so that critical sections such as "count,
   * then insert under a quota" or "read a provider's version, then bump it" run one at a time across
   * connections and instances. Call it first in a transaction (and in a fixed key order) to avoid deadlocks.
   */
  readonly lock: (key: string) => Op<void>;
}

/** Providers, their page of a listing, and the one-round-trip lookup a server write makes. */
export interface ProviderStore {
  readonly insertProvider: (row: ProviderRow) => Op<void, UniqueViolation>;
  readonly updateProvider: (row: ProviderRow, expectedVersion: number) => Op<boolean, UniqueViolation>;
  /** Deletes a provider with its tools, prompts and resources. */
  readonly deleteProvider: (id: string) => Op<void, ReferenceViolation>;
  readonly findProvider: (id: string) => Op<ProviderRow | undefined>;
  readonly findProviderWithTools: (id: string) => Op<ProviderWithTools | undefined>;
  readonly searchProviders: (search: ProviderSearch) => Op<ProviderPage>;
  readonly countProviders: (tenant: string) => Op<number>;
  /**
   * The providers with `providerIds` and the tools with `toolIds`, of any tenant, each once and in no
   * particular order (unknown ids are left out): a server write resolves everything it names in one round
   * trip on SQL adapters. With `variablesOf`, also the variables of that tenant the found tools' headers
   * name (`variablesReferencedBy`), in the same round trip.
   */
  readonly findProvidersAndTools: (
    providerIds: ReadonlyArray<string>,
    toolIds: ReadonlyArray<string>,
    variablesOf?: string,
  ) => Op<ProvidersAndTools>;
}

/** A provider's tools. */
export interface ToolStore {
  readonly insertTool: (row: ToolRow) => Op<void, UniqueViolation | ReferenceViolation>;
  readonly updateTool: (row: ToolRow) => Op<void, UniqueViolation>;
  readonly deleteTool: (id: string) => Op<void, ReferenceViolation>;
  readonly findTool: (id: string) => Op<ToolRow | undefined>;
  readonly listTools: (providerId: string) => Op<ReadonlyArray<ToolRow>>;
  /** A page of a provider's tools in list order, after `after`, filtered by `contains`, and the match count. */
  readonly searchTools: (search: ToolSearch) => Op<ToolPage>;
}

/** A provider's prompts. */
export interface PromptStore {
  readonly insertPrompt: (row: PromptRow) => Op<void, UniqueViolation | ReferenceViolation>;
  readonly updatePrompt: (row: PromptRow) => Op<void, UniqueViolation>;
  readonly deletePrompt: (id: string) => Op<void, ReferenceViolation>;
  readonly findPrompt: (id: string) => Op<PromptRow | undefined>;
  readonly listPrompts: (providerId: string) => Op<ReadonlyArray<PromptRow>>;
}

/** A provider's resources. */
export interface ResourceStore {
  readonly insertResource: (row: ResourceRow) => Op<void, UniqueViolation | ReferenceViolation>;
  readonly updateResource: (row: ResourceRow) => Op<void, UniqueViolation>;
  readonly deleteResource: (id: string) => Op<void, ReferenceViolation>;
  readonly findResource: (id: string) => Op<ResourceRow | undefined>;
  readonly listResources: (providerId: string) => Op<ReadonlyArray<ResourceRow>>;
}

/** A tenant's variables. */
export interface VariableStore {
  readonly insertVariable: (row: VariableRow) => Op<void, UniqueViolation>;
  readonly updateVariable: (row: VariableRow) => Op<void>;
  readonly deleteVariable: (id: string) => Op<void>;
  readonly findVariable: (id: string) => Op<VariableRow | undefined>;
  readonly listVariables: (tenant: string) => Op<ReadonlyArray<VariableRow>>;
  readonly countVariables: (tenant: string) => Op<number>;
  /** The variables of a tenant with the given names (in no particular order); for resolving `${NAME}`. */
  readonly findVariablesByName: (tenant: string, names: ReadonlyArray<string>) => Op<ReadonlyArray<VariableRow>>;
}

/** Servers and their graphs (the providers, tools, prompts and resources they compose). */
export interface ServerStore {
  /**
   * Inserts a server with its provider, tool, resource and prompt links; answers true. With `maxServers`, only
   * while the row's tenant has fewer servers than that (counted by the insert itself, so the caller holds the
   * tenant's quota lock): otherwise it writes nothing, reports no breach and answers false. An adapter may
   * answer true before the insert has run (sending it with COMMIT), provided that, should the insert then be
   * refused, it rolls the whole transaction back and runs the work again, answering this time what the insert did.
   */
  readonly insertServer: (row: ServerRow, maxServers?: number) => Op<boolean, UniqueViolation | ReferenceViolation>;
  /** Replaces a server and its links if its stored version is `expectedVersion`. */
  readonly updateServer: (row: ServerRow, expectedVersion: number) => Op<boolean, UniqueViolation | ReferenceViolation>;
  /** Deletes a server and its tokens. */
  readonly deleteServer: (id: string) => Op<void>;
  readonly findServer: (id: string) => Op<ServerRow | undefined>;
  /** A server with the records its response shows, in one round trip on SQL adapters. */
  readonly findServerGraph: (id: string) => Op<ServerGraph | undefined>;
  /** Every server of a tenant as graphs, in a fixed number of round trips on SQL adapters. */
  readonly listServerGraphs: (tenant: string) => Op<ReadonlyArray<ServerGraph>>;
  readonly countServers: (tenant: string) => Op<number>;
  /** The servers (of any tenant) that reference a record. */
  readonly serversReferencing: (
    reference: ServerReference,
  ) => Op<ReadonlyArray<{ readonly id: string; readonly tenant: string }>>;
}

/** A server's tokens. */
export interface ServerTokenStore {
  readonly insertServerToken: (row: ServerTokenRow) => Op<void, ReferenceViolation>;
  readonly deleteServerToken: (id: string) => Op<void>;
  readonly findServerToken: (id: string) => Op<ServerTokenRow | undefined>;
  readonly findServerTokenByHash: (valueHash: string) => Op<ServerTokenRow | undefined>;
  readonly listServerTokens: (serverId: string) => Op<ReadonlyArray<ServerTokenRow>>;
  readonly countServerTokens: (serverId: string) => Op<number>;
}

/** Every stored secret, for the operator's key rotation. */
export interface SecretStore {
  /**
   * Up to `limit` stored secrets of every tenant after `after`, ordered by kind then id (code unit order):
   * SECRET variable values and providers' client secrets, as ciphertext. For key rotation.
   */
  readonly listSecrets: (after: SecretCursor | undefined, limit: number) => Op<ReadonlyArray<StoredSecret>>;
  /**
   * Replaces the ciphertext of a stored secret if it is still `secret.ciphertext` (compare-and-set, so a
   * concurrent write of a new secret is never overwritten); false when it changed or is gone. Nothing else
   * of the record changes (not its version or updatedAt: the secret itself is the same).
   */
  readonly replaceSecret: (secret: StoredSecret, ciphertext: string) => Op<boolean>;
}

/** Upstream OAuth connections and the consents on their way (docs/api-rules.md §13). */
export interface UpstreamConnectionStore {
  /**
   * Upstream OAuth connections (docs/api-rules.md §13), unique per (provider, tenant, principal); deleted with
   * their provider and with the server token they were made with.
   */
  readonly findUpstreamConnection: (
    providerId: string,
    tenant: string,
    principal: string,
  ) => Op<UpstreamConnectionRow | undefined>;
  readonly findUpstreamConnectionById: (id: string) => Op<UpstreamConnectionRow | undefined>;
  /** Inserts the connection, or replaces the one of the same (provider, tenant, principal) (keeping its id). */
  readonly putUpstreamConnection: (row: UpstreamConnectionRow) => Op<UpstreamConnectionRow, ReferenceViolation>;
  readonly deleteUpstreamConnection: (id: string) => Op<void>;
  /** The connections of a provider made by callers of `tenant`, in creation order. */
  readonly listUpstreamConnections: (providerId: string, tenant: string) => Op<ReadonlyArray<UpstreamConnectionRow>>;
  /** Stores a consent under way. */
  readonly insertUpstreamAuthorization: (row: UpstreamAuthorizationRow) => Op<void, ReferenceViolation>;
  /** Deletes and answers a consent under way (single use: a second take finds nothing). */
  readonly takeUpstreamAuthorization: (id: string) => Op<UpstreamAuthorizationRow | undefined>;
  /** Deletes up to `limit` consents under way (of any tenant) that expired before `before`; answers how many. */
  readonly pruneUpstreamAuthorizations: (before: Date, limit: number) => Op<number>;
}

/** The audit trail (docs/api-rules.md §18). */
export interface AuditStore {
  /** Stores an audit event (in the transaction of the change it records). */
  readonly insertAuditEvent: (row: AuditEventRow) => Op<void>;
  readonly searchAuditEvents: (search: AuditSearch) => Op<AuditPage>;
  /** Deletes up to `limit` events (of any tenant) older than `before`, oldest first; answers how many. */
  readonly pruneAuditEvents: (before: Date, limit: number) => Op<number>;
  /** Whether any event (of any tenant) is older than `before` (reads, changes nothing). */
  readonly hasAuditEventsBefore: (before: Date) => Op<boolean>;
}

/** Server revisions (docs/api-rules.md §21), deleted with their server. */
export interface ServerRevisionStore {
  /** Stores a revision (in the transaction of the change it records); one per (server, version). */
  readonly insertServerRevision: (row: ServerRevisionRow) => Op<void>;
  /** The revision of a server at `version`, with its document and content. */
  readonly findServerRevision: (serverId: string, version: number) => Op<ServerRevisionRow | undefined>;
  /** A page of a server's revisions, newest (highest version) first, without documents. */
  readonly listServerRevisions: (search: ServerRevisionSearch) => Op<ServerRevisionPage>;
  /** Deletes the revisions of a server whose version is below `keepFrom`. */
  readonly pruneServerRevisions: (serverId: string, keepFrom: number) => Op<void>;
}

/** The state of the service's own OAuth authorization server (@mcpsm/mcp-oauth). */
export interface OAuthServerStore {
  /**
   * Inserts a record of the service's OAuth authorization server, or replaces the one with its id; a
   * replacement keeps the stored `serverTokenId` and `consumedAt` when the new row has none.
   */
  readonly upsertOAuthServerRecord: (row: OAuthServerRecordRow) => Op<void>;
  /** The record with this id, expired or not (the caller judges `expiresAt`). */
  readonly findOAuthServerRecord: (id: string) => Op<OAuthServerRecordRow | undefined>;
  /** The record of `model` with this `uid`. */
  readonly findOAuthServerRecordByUid: (model: string, uid: string) => Op<OAuthServerRecordRow | undefined>;
  /** Marks a record used at `at` (once: a later call keeps the first time). */
  readonly consumeOAuthServerRecord: (id: string, at: Date) => Op<void>;
  readonly deleteOAuthServerRecord: (id: string) => Op<void>;
  /** Deletes the records of `model` that belong to `grantId`; answers how many. */
  readonly deleteOAuthServerRecordsOfGrant: (model: string, grantId: string) => Op<number>;
  /**
   * Deletes the grants made by pasting server token `serverTokenId`, with every record (of any model)
   * belonging to them; answers how many records went.
   */
  readonly deleteOAuthServerGrantsOfServerToken: (serverTokenId: string) => Op<number>;
  /** Deletes up to `limit` records that expired before `before`; answers how many. */
  readonly pruneOAuthServerRecords: (before: Date, limit: number) => Op<number>;
}

/** Git connections and the git outbox (docs/api-rules.md §17). */
export interface GitStore {
  /** Stores a git connection; its name is unique per tenant. */
  readonly insertGitConnection: (row: GitConnectionRow) => Op<void, UniqueViolation>;
  /** Deletes a git connection; the servers using it lose it (their `gitConnectionId` becomes null). */
  readonly deleteGitConnection: (id: string) => Op<void>;
  readonly findGitConnection: (id: string) => Op<GitConnectionRow | undefined>;
  /** A tenant's git connections in creation order. */
  readonly listGitConnections: (tenant: string) => Op<ReadonlyArray<GitConnectionRow>>;
  readonly countGitConnections: (tenant: string) => Op<number>;
  /**
   * Notes, in the transaction of a write, that servers changed: the named servers and every server using
   * one of the named providers (or their tools, prompts, resources). Each such server with a git connection
   * gets a pending push (its outbox entry created or its `changeSeq` raised, due now, backoff reset); each
   * named server without one has its entry (if any) turned OFF with `offReason` as its error.
   */
  readonly noteGitSyncChanges: (changes: GitSyncChanges, at: Date, offReason: string) => Op<void>;
  readonly findGitSync: (serverId: string) => Op<GitSyncRow | undefined>;
  /**
   * Leases up to `limit` due entries to `claim.owner`: pending (changeSeq > pushedSeq, not OFF), due
   * (nextAttemptAt ≤ now), not leased by anyone (or the lease ran out), and quiet (last change at or before
   * `quietSince`, or pending since `pendingBefore`). Concurrent claimers never get the same entry.
   */
  readonly claimGitSyncs: (claim: GitSyncClaim) => Op<ReadonlyArray<GitSyncRow>>;
  /** Whether `claimGitSyncs(claim)` would lease anything now (same conditions; reads, changes nothing). */
  readonly hasDueGitSyncs: (claim: GitSyncDue) => Op<boolean>;
  /**
   * Records how a leased push ended, if `owner` still holds the lease (false otherwise); releases it. Pushed:
   * `pushedSeq` becomes the larger of it and `outcome.seq`, the state SYNCED, or PENDING (pending since the
   * last change) when a change came after the pushed one; attempts and error are cleared. Failed: FAILED with
   * the error, one attempt more, next attempt at `outcome.retryAt`. An OFF entry stays OFF either way. Applied
   * atomically by the store: a change noted meanwhile is never lost.
   */
  readonly settleGitSync: (serverId: string, owner: string, outcome: GitSyncOutcome) => Op<boolean>;
}

/** Calls waiting for a person's approval (docs/api-rules.md §20); deleted with their server. */
export interface ApprovalStore {
  readonly insertApproval: (row: ApprovalRow) => Op<void, ReferenceViolation>;
  readonly findApproval: (id: string) => Op<ApprovalRow | undefined>;
  /** Replaces an approval if its stored status is `expectedStatus` (compare-and-set: one decision, one use). */
  readonly updateApproval: (row: ApprovalRow, expectedStatus: ApprovalStatus) => Op<boolean>;
  /** The approvals of one caller for one tool of one server, in creation order. */
  readonly listCallApprovals: (serverId: string, principal: string, toolId: string) => Op<ReadonlyArray<ApprovalRow>>;
  /** A tenant's approvals with `status` that expire after `after`, in creation order. */
  readonly listApprovals: (tenant: string, status: ApprovalStatus, after: Date) => Op<ReadonlyArray<ApprovalRow>>;
  /** Deletes at most `limit` approvals (every tenant's) that expired at or before `at`; answers their statuses. */
  readonly deleteExpiredApprovals: (at: Date, limit: number) => Op<ReadonlyArray<ApprovalStatus>>;
  /** Whether any approval (of any tenant) expired at or before `at` (reads, changes nothing). */
  readonly hasExpiredApprovals: (at: Date) => Op<boolean>;
}

/** Tasks following long-running upstream operations (docs/api-rules.md §22), shared by the instances. */
export interface UpstreamTaskStore {
  readonly insertUpstreamTask: (row: UpstreamTaskRow) => Op<void>;
  readonly findUpstreamTask: (id: string) => Op<UpstreamTaskRow | undefined>;
  /** Replaces a task if its stored status is `expected` (compare-and-set: a cancel and a finish race once). */
  readonly updateUpstreamTask: (row: UpstreamTaskRow, expected: UpstreamTaskStatus) => Op<boolean>;
  /** Deletes at most `limit` tasks that expired at or before `at`; answers how many. */
  readonly deleteExpiredUpstreamTasks: (at: Date, limit: number) => Op<number>;
}

/**
 * What the use cases need of a store, inside one transaction. Lists come in creation order (then id).
 * Adapters enforce uniqueness and references themselves (so concurrent writers cannot break them) and
 * report breaches as UniqueViolation / ReferenceViolation. `update*` with an expected version is a single
 * compare-and-set and answers false when the stored version moved.
 */
export interface StorageTx
  extends LockStore,
    ProviderStore,
    ToolStore,
    PromptStore,
    ResourceStore,
    VariableStore,
    ServerStore,
    ServerTokenStore,
    SecretStore,
    UpstreamConnectionStore,
    AuditStore,
    OAuthServerStore,
    GitStore,
    ServerRevisionStore,
    CallerValueStore,
    ApprovalStore,
    UpstreamTaskStore {}

/** The operations of a `StorageTx` that only read: what `Storage.read` offers. */
export type ReadOperation = Extract<
  keyof StorageTx,
  `find${string}` | `list${string}` | `search${string}` | `count${string}` | `has${string}` | "serversReferencing"
>;

/** Read-only work's view of the store: the reads of every capability, no write, no lock. */
export type ReadTx = Pick<StorageTx, ReadOperation>;

/**
 * The storage port. `transaction` runs `work` atomically: all its writes commit together, or none do
 * when it fails. `read` runs read-only work and may skip the transaction overhead.
 */
export class Storage extends Context.Tag("@mcpsm/domain/Storage")<
  Storage,
  {
    readonly transaction: <A, E, R>(
      work: (tx: StorageTx) => Effect.Effect<A, E, R>,
    ) => Effect.Effect<A, E | Unavailable, R>;
    readonly read: <A, E, R>(work: (tx: ReadTx) => Effect.Effect<A, E, R>) => Effect.Effect<A, E | Unavailable, R>;
    /** The tool-call log: outside transactions (call-log-port.ts). */
    readonly calls: CallLogStore;
    /**
     * Optional: a number that stays the same while nothing is committed to the store, and moves with every
     * commit, by this instance (before its `transaction` returns) or, as far as the store can vouch, by any
     * other; undefined while it cannot vouch for that. What an adapter derived from reads may be reused
     * while the stamp taken before those reads is still the one answered. A store without it: nothing is.
     */
    readonly changeStamp?: (() => number | undefined) | undefined;
  }
>() {}
