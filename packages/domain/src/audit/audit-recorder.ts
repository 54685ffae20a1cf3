import { Effect } from "effect";
import { newId } from "../ids/id.js";
import type { StorageTx } from "../storage/storage-port.js";
import type { AuditContext } from "./audit-context.js";
import type { AuditEventRow, AuditTargetKind } from "./audit-schema.js";

// Derives the audit event of a transaction from the writes it made, so no use case can forget it and the
// changed fields are exactly what was stored. The recording StorageTx remembers every row a transaction
// read (the state before) and every row it wrote (the state after); at the end one event names the main
// record written. A provider or server that only got a new version (a child changed) is not the target
// but gives the event its versions.

type Row = { readonly id: string } & Readonly<Record<string, unknown>>;

interface Change {
  readonly kind: AuditTargetKind;
  readonly id: string;
  /** The row before the transaction's first write of it; undefined when it was created. */
  readonly before: Row | undefined;
  /** The row after its last write; undefined when it was deleted. */
  after: Row | undefined;
}

/** Stored columns that are bookkeeping, not fields a client changes. */
const BOOKKEEPING = new Set(["id", "tenant", "createdAt", "updatedAt", "version", "providerId", "serverId"]);
/** Row columns whose wire name differs. */
const WIRE_NAMES: Readonly<Record<string, string>> = {
  resourceIds: "resources",
  promptIds: "prompts",
  valueHash: "value",
  valueCipher: "value",
};
const wireName = (column: string) => WIRE_NAMES[column] ?? column;

/** A value a created record holds when the client did not set it. */
const isUnset = (value: unknown) =>
  value === undefined ||
  value === null ||
  value === "" ||
  value === false ||
  (Array.isArray(value) && value.length === 0);

/** The wire names of the fields that differ between `before` and `after` (a create: every field set). */
export const changedFields = (before: Row | undefined, after: Row | undefined): ReadonlyArray<string> => {
  if (after === undefined) return [];
  const names: Array<string> = [];
  for (const [column, value] of Object.entries(after)) {
    if (BOOKKEEPING.has(column)) continue;
    const changed = before === undefined ? !isUnset(value) : JSON.stringify(value) !== JSON.stringify(before[column]);
    if (changed) names.push(wireName(column));
  }
  return names;
};

const VERSIONED: ReadonlySet<AuditTargetKind> = new Set(["provider", "server"]);

/** A provider or server write that only moved its version (one of its children or members changed). */
const isBump = (change: Change) =>
  VERSIONED.has(change.kind) &&
  change.before !== undefined &&
  change.after !== undefined &&
  changedFields(change.before, change.after).length === 0;

const versionOf = (row: Row | undefined) => (typeof row?.version === "number" ? row.version : 0);

/** The one event describing `changes` (in the order they were first made), or undefined when none. */
export const auditEventOf = (
  changes: ReadonlyArray<Change>,
  context: typeof AuditContext.Service,
  at: Date,
): AuditEventRow | undefined => {
  const own = changes.filter((c) => !isBump(c));
  const parent = changes.find((c) => VERSIONED.has(c.kind));
  // One record written (with its parent's new version): that record. Several at once (an import, a
  // re-sync): the provider or server they belong to, whose changed fields then include the children's lists.
  const several = own.length > 1 && parent !== undefined;
  const target = several ? parent : (own[0] ?? changes[0]);
  if (target === undefined) return undefined;
  const versioned = VERSIONED.has(target.kind) ? target : parent;
  const fields = several
    ? [
        ...new Set([
          ...changedFields(target.before, target.after),
          ...own.filter((c) => c !== target).map((c) => `${c.kind}s`),
        ]),
      ]
    : [...changedFields(target.before, target.after)];
  return {
    id: newId(),
    tenant: context.tenant,
    at,
    actorSub: context.sub,
    actorClientId: context.clientId,
    operation: context.operation,
    targetKind: target.kind,
    targetId: target.id,
    versionBefore: versionOf(versioned?.before),
    versionAfter: versionOf(versioned?.after),
    requestId: context.requestId,
    fields,
  };
};

type Method = keyof StorageTx & string;

/**
 * How the recorder sees one kind of audited record: the port methods that read one row by id (its state
 * before a write) and that write it. A new kind of record a management write changes gets an entry here
 * (and its kind in AUDIT_TARGET_KINDS); until then a write through its methods in an audited transaction
 * fails loudly (see `unmappedWrites`).
 */
interface AuditedTable {
  readonly kind: AuditTargetKind;
  /** Reads one row by id. */
  readonly find: Method;
  /** Other reads whose answer holds rows of this kind, and how to pick them out. */
  readonly reads?: Readonly<Partial<Record<Method, (answer: never) => Row | ReadonlyArray<Row> | undefined>>>;
  readonly insert?: Method;
  readonly update?: Method;
  /** An update that answers whether its compare-and-set applied. */
  readonly casUpdate?: Method;
  readonly delete?: Method;
  /** An insert-or-replace answering the stored row, and how to read the row it replaces (by natural key). */
  readonly put?: { readonly method: Method; readonly before: (tx: StorageTx, row: never) => Effect.Effect<unknown> };
}

/** The audited tables (docs/api-rules.md §18). */
const AUDITED_TABLES: ReadonlyArray<AuditedTable> = [
  {
    kind: "provider",
    find: "findProvider",
    reads: {
      findProviderWithTools: (found: { provider: Row } | undefined) => found?.provider,
      findProvidersAndTools: (found: { providers: ReadonlyArray<Row> }) => found.providers,
    },
    insert: "insertProvider",
    casUpdate: "updateProvider",
    delete: "deleteProvider",
  },
  {
    kind: "tool",
    find: "findTool",
    reads: {
      findProvidersAndTools: (found: { tools: ReadonlyArray<Row> }) => found.tools,
    },
    insert: "insertTool",
    update: "updateTool",
    delete: "deleteTool",
  },
  { kind: "prompt", find: "findPrompt", insert: "insertPrompt", update: "updatePrompt", delete: "deletePrompt" },
  {
    kind: "resource",
    find: "findResource",
    insert: "insertResource",
    update: "updateResource",
    delete: "deleteResource",
  },
  {
    kind: "variable",
    find: "findVariable",
    insert: "insertVariable",
    update: "updateVariable",
    delete: "deleteVariable",
  },
  {
    kind: "server",
    find: "findServer",
    reads: { findServerGraph: (graph: { server: Row } | undefined) => graph?.server },
    insert: "insertServer",
    casUpdate: "updateServer",
    delete: "deleteServer",
  },
  { kind: "token", find: "findServerToken", insert: "insertServerToken", delete: "deleteServerToken" },
  {
    kind: "connection",
    find: "findUpstreamConnectionById",
    put: {
      method: "putUpstreamConnection",
      before: (tx, row: { providerId: string; tenant: string; principal: string }) =>
        tx.findUpstreamConnection(row.providerId, row.tenant, row.principal),
    },
    delete: "deleteUpstreamConnection",
  },
  { kind: "gitConnection", find: "findGitConnection", insert: "insertGitConnection", delete: "deleteGitConnection" },
  {
    kind: "callerValue",
    find: "findCallerValueById",
    put: {
      method: "putCallerValue",
      before: (tx, row: { variableId: string; principal: string }) =>
        Effect.map(tx.findCallerValues([row.variableId], row.principal), (rows) => rows[0]),
    },
    delete: "deleteCallerValue",
  },

  // A decision on a call waiting for approval (docs/api-rules.md §20).
  { kind: "approval", find: "findApproval", casUpdate: "updateApproval" },
];

/** Port methods that write but change no management record: the trail itself, and key rotation (`rekey`). */
const UNAUDITED_WRITES: ReadonlySet<string> = new Set([
  "insertAuditEvent",
  "pruneAuditEvents",
  "replaceSecret",
  // A consent under way (upstream OAuth): state of a flow, not a record a client manages.
  "insertUpstreamAuthorization",
  "pruneUpstreamAuthorizations",
  // A per-caller value's form under way (docs/api-rules.md §23): state of a flow, like a consent.
  "insertCallerValueForm",
  "pruneCallerValueForms",
  // The service's own OAuth authorization server's runtime records (grants, codes, sessions).
  "upsertOAuthServerRecord",
  "deleteOAuthServerRecord",
  "deleteOAuthServerRecordsOfGrant",
  "deleteOAuthServerGrantsOfServerToken",
  "pruneOAuthServerRecords",
  // The git outbox's worker settling a push: the state of a background job, not a management record.
  "settleGitSync",
  // A server's revisions: recorded beside the server write the event already names (docs/api-rules.md §21).
  "insertServerRevision",
  "pruneServerRevisions",

  // A call asking for approval: the MCP endpoint's state of a flow; its decision is audited.
  "insertApproval",
  // The sweep of approvals past their 10 minutes (nothing a person decided changes).
  "deleteExpiredApprovals",
  // A long-running operation's task (docs/api-rules.md §22): the MCP endpoint's state of a flow.
  "insertUpstreamTask",
  "updateUpstreamTask",
  "deleteExpiredUpstreamTasks",
]);

/** The names the port gives its writes. */
const WRITE_METHOD = /^(insert|update|delete|replace|prune|upsert|remove|add|set|save|put|store|revoke|rotate|mark)/;

const MAPPED: ReadonlySet<string> = new Set(
  AUDITED_TABLES.flatMap((t) =>
    [t.insert, t.update, t.casUpdate, t.delete, t.put?.method].filter((m) => m !== undefined),
  ),
);

/**
 * The write methods of `tx` that the audit recorder does not account for: none in a consistent build. A
 * storage port method added for a new kind of record must be mapped in AUDITED_TABLES (or, if it changes
 * no management record, listed in UNAUDITED_WRITES); until then it dies when an audited transaction uses it.
 */
export const unmappedWrites = (tx: StorageTx): ReadonlyArray<string> =>
  Object.keys(tx).filter((name) => WRITE_METHOD.test(name) && !MAPPED.has(name) && !UNAUDITED_WRITES.has(name));

type AnyMethod = (...args: ReadonlyArray<unknown>) => Effect.Effect<unknown, unknown>;

/** A StorageTx that records the rows `tx` reads and writes; `changes()` lists the writes. */
export const recordingTx = (tx: StorageTx) => {
  const seen = new Map<string, Row>();
  const changes = new Map<string, Change>();
  const key = (kind: AuditTargetKind, id: string) => `${kind}:${id}`;
  const remember = (kind: AuditTargetKind, row: Row | undefined) => {
    if (row !== undefined && !seen.has(key(kind, row.id))) seen.set(key(kind, row.id), row);
  };
  const note = (kind: AuditTargetKind, id: string, after: Row | undefined, before: Row | undefined) => {
    const existing = changes.get(key(kind, id));
    if (existing !== undefined) existing.after = after;
    else changes.set(key(kind, id), { kind, id, before, after });
    if (after !== undefined) seen.set(key(kind, id), after);
    else seen.delete(key(kind, id));
  };
  const method = (name: Method) => tx[name] as unknown as AnyMethod;
  /** The row as it stands before a write: remembered, or read now. */
  const current = (table: AuditedTable, id: string) =>
    seen.has(key(table.kind, id))
      ? Effect.succeed(seen.get(key(table.kind, id)))
      : (method(table.find)(id) as Effect.Effect<Row | undefined>);

  const recorded: Record<string, AnyMethod> = { ...(tx as unknown as Record<string, AnyMethod>) };
  for (const name of unmappedWrites(tx))
    recorded[name] = () =>
      Effect.dieMessage(
        `StorageTx.${name} writes in an audited transaction but the audit trail does not know it: map its table in AUDITED_TABLES (packages/domain/src/audit/audit-recorder.ts), or list it in UNAUDITED_WRITES if it changes no management record`,
      );
  for (const table of AUDITED_TABLES) {
    const { kind } = table;
    recorded[table.find] = (id) => Effect.tap(method(table.find)(id), (row) => remember(kind, row as Row | undefined));
    for (const [name, pick] of Object.entries(table.reads ?? {})) {
      // A read whose answer holds rows of several kinds is wrapped once per kind, each around the last.
      const read = recorded[name] as AnyMethod;
      recorded[name] = (...args) =>
        Effect.tap(read(...args), (answer) => {
          const picked = (pick as (a: unknown) => Row | ReadonlyArray<Row> | undefined)(answer);
          for (const row of Array.isArray(picked) ? picked : [picked]) remember(kind, row);
        });
    }
    if (table.insert !== undefined) {
      const insert = method(table.insert);
      // A conditional insert (a server within its quota) that answers false wrote nothing.
      recorded[table.insert] = (row, ...rest) =>
        Effect.tap(insert(row, ...rest), (inserted) =>
          inserted === false ? undefined : note(kind, (row as Row).id, row as Row, undefined),
        );
    }
    if (table.update !== undefined) {
      const update = method(table.update);
      recorded[table.update] = (row) =>
        Effect.flatMap(current(table, (row as Row).id), (before) =>
          Effect.tap(update(row), () => note(kind, (row as Row).id, row as Row, before)),
        );
    }
    if (table.casUpdate !== undefined) {
      const update = method(table.casUpdate);
      recorded[table.casUpdate] = (row, expected) =>
        Effect.flatMap(current(table, (row as Row).id), (before) =>
          Effect.tap(update(row, expected), (applied) =>
            applied === true ? note(kind, (row as Row).id, row as Row, before) : undefined,
          ),
        );
    }
    if (table.put !== undefined) {
      const { before } = table.put;
      const put = method(table.put.method);
      recorded[table.put.method] = (row) =>
        Effect.flatMap(before(tx, row as never), (previous) =>
          Effect.tap(put(row), (stored) => note(kind, (stored as Row).id, stored as Row, previous as Row | undefined)),
        );
    }
    if (table.delete !== undefined) {
      const remove = method(table.delete);
      recorded[table.delete] = (id) =>
        Effect.flatMap(current(table, id as string), (before) =>
          Effect.tap(remove(id), () =>
            before === undefined ? undefined : note(kind, id as string, undefined, before),
          ),
        );
    }
  }
  return {
    tx: recorded as unknown as StorageTx,
    changes: (): ReadonlyArray<Change> => [...changes.values()],
  };
};
