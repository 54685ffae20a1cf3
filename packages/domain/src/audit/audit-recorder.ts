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
  /** The row as it stands before a write: remembered, or read now. */
  const current = (kind: AuditTargetKind, id: string, find: (id: string) => Effect.Effect<Row | undefined>) =>
    seen.has(key(kind, id)) ? Effect.succeed(seen.get(key(kind, id))) : find(id);
  const reading =
    <A extends Row | undefined>(kind: AuditTargetKind, find: (id: string) => Effect.Effect<A>) =>
    (id: string) =>
      Effect.tap(find(id), (row) => remember(kind, row));
  const inserting =
    <R extends Row, E>(kind: AuditTargetKind, insert: (row: R) => Effect.Effect<void, E>) =>
    (row: R) =>
      Effect.tap(insert(row), () => note(kind, row.id, row, undefined));
  const updating =
    <R extends Row, E>(
      kind: AuditTargetKind,
      find: (id: string) => Effect.Effect<Row | undefined>,
      update: (row: R) => Effect.Effect<void, E>,
    ) =>
    (row: R) =>
      Effect.flatMap(current(kind, row.id, find), (before) =>
        Effect.tap(update(row), () => note(kind, row.id, row, before)),
      );
  const deleting =
    <E>(
      kind: AuditTargetKind,
      find: (id: string) => Effect.Effect<Row | undefined>,
      remove: (id: string) => Effect.Effect<void, E>,
    ) =>
    (id: string) =>
      Effect.flatMap(current(kind, id, find), (before) =>
        Effect.tap(remove(id), () => (before === undefined ? undefined : note(kind, id, undefined, before))),
      );
  /** An update that reports whether its compare-and-set applied. */
  const casUpdating =
    <R extends Row, E>(
      kind: AuditTargetKind,
      find: (id: string) => Effect.Effect<Row | undefined>,
      update: (row: R, expected: number) => Effect.Effect<boolean, E>,
    ) =>
    (row: R, expected: number) =>
      Effect.flatMap(current(kind, row.id, find), (before) =>
        Effect.tap(update(row, expected), (applied) => (applied ? note(kind, row.id, row, before) : undefined)),
      );

  const recorded: StorageTx = {
    ...tx,
    findProvider: reading("provider", tx.findProvider),
    findProviderWithTools: (id) =>
      Effect.tap(tx.findProviderWithTools(id), (found) => remember("provider", found?.provider)),
    insertProvider: inserting("provider", tx.insertProvider),
    updateProvider: casUpdating("provider", tx.findProvider, tx.updateProvider),
    deleteProvider: deleting("provider", tx.findProvider, tx.deleteProvider),
    findTool: reading("tool", tx.findTool),
    insertTool: inserting("tool", tx.insertTool),
    updateTool: updating("tool", tx.findTool, tx.updateTool),
    deleteTool: deleting("tool", tx.findTool, tx.deleteTool),
    findPrompt: reading("prompt", tx.findPrompt),
    insertPrompt: inserting("prompt", tx.insertPrompt),
    updatePrompt: updating("prompt", tx.findPrompt, tx.updatePrompt),
    deletePrompt: deleting("prompt", tx.findPrompt, tx.deletePrompt),
    findResource: reading("resource", tx.findResource),
    insertResource: inserting("resource", tx.insertResource),
    updateResource: updating("resource", tx.findResource, tx.updateResource),
    deleteResource: deleting("resource", tx.findResource, tx.deleteResource),
    findVariable: reading("variable", tx.findVariable),
    insertVariable: inserting("variable", tx.insertVariable),
    updateVariable: updating("variable", tx.findVariable, tx.updateVariable),
    deleteVariable: deleting("variable", tx.findVariable, tx.deleteVariable),
    findServer: reading("server", tx.findServer),
    findServerGraph: (id) => Effect.tap(tx.findServerGraph(id), (graph) => remember("server", graph?.server)),
    insertServer: inserting("server", tx.insertServer),
    updateServer: casUpdating("server", tx.findServer, tx.updateServer),
    deleteServer: deleting("server", tx.findServer, tx.deleteServer),
    findServerToken: reading("token", tx.findServerToken),
    insertServerToken: inserting("token", tx.insertServerToken),
    deleteServerToken: deleting("token", tx.findServerToken, tx.deleteServerToken),
  };
  return { tx: recorded, changes: (): ReadonlyArray<Change> => [...changes.values()] };
};
