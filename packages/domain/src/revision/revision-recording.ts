import { Clock, Effect, FiberRef } from "effect";
import type { AuditContext } from "../audit/audit-context.js";
import { exportDocumentOf } from "../export/export-document.js";
import { newId } from "../ids/id.js";
import { variablesReferencedBy } from "../export/export-document.js";
import type { ProviderRow, ServerGraph, ServerRow, ToolRow, VariableRow } from "../storage/rows.js";
import type { StorageTx } from "../storage/storage-port.js";
import { StaleRead } from "../use-case/stale-read.js";
import { revisionContentOf, summaryOfRowChange } from "./revision-content.js";
import { REVISIONS_KEPT } from "./revision-rows.js";

// Every change of a server's content passes through one of two kinds of write (docs/api-rules.md §21): the
// server row written (its fields, members and settings: insertServer, updateServer), or a member it uses
// changed under it (updateTool, updatePrompt, updateResource, or a provider's own fields by updateProvider).
// So revisions are recorded here, around the storage of every write transaction, as the git outbox is fed:
// no use case can forget one, and each commits or rolls back with its change. A member change moves the
// version of each server using it (a new version of its content) before its revision is written.

/** A summary that replaces the derived one for the writes of this fiber (a restore names its source). */
export const RevisionSummary = FiberRef.unsafeMake<string | undefined>(undefined);

/** Row fields of a provider that are bookkeeping, not content a server shows. */
const PROVIDER_BOOKKEEPING: ReadonlySet<string> = new Set(["version", "updatedAt"]);

/** True when a provider's own fields (not only its version) differ between two rows. */
const providerFieldsDiffer = (before: ProviderRow, after: ProviderRow) => {
  const a = before as unknown as Readonly<Record<string, unknown>>;
  const b = after as unknown as Readonly<Record<string, unknown>>;
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].some(
    (field) => !PROVIDER_BOOKKEEPING.has(field) && JSON.stringify(a[field]) !== JSON.stringify(b[field]),
  );
};

/** What changed under the servers of one provider in this transaction. */
interface MemberChanges {
  fields: boolean;
  readonly members: Map<string, string>;
}

const joinCapped = (parts: ReadonlyArray<string>) => {
  const line = parts.join("; ");
  return line.length <= 200 ? line : `${line.slice(0, 199)}…`;
};

/**
 * `work`, recording at its end (in the same transaction) a revision of every server whose content it
 * changed, with the actor of `context` (none without one).
 */
export const recordingRevisions =
  <A, E, R>(work: (tx: StorageTx) => Effect.Effect<A, E, R>, context: typeof AuditContext.Service | undefined) =>
  (tx: StorageTx): Effect.Effect<A, E | StaleRead, R> =>
    Effect.suspend(() => {
      /** Server rows as first read, for the summary of a direct write. */
      const before = new Map<string, ServerRow>();
      /** The last row written per server. */
      const written = new Map<string, ServerRow>();
      /** Providers as first read, so a provider write needs no read of its own. */
      const providersSeen = new Map<string, ProviderRow>();
      /** Tools as read by the write's lookup, and the variables read with them (per tenant: the names covered). */
      const toolsSeen = new Map<string, ToolRow>();
      const variablesSeen = new Map<string, { named: Set<string>; rows: Map<string, VariableRow> }>();
      const changes = new Map<string, MemberChanges>();
      /** Server graphs read since the last write that could change one (a PATCH reads its answer's). */
      const graphsSeen = new Map<string, ServerGraph>();
      const afterWrite =
        <Args extends ReadonlyArray<unknown>, A, E>(write: (...args: Args) => Effect.Effect<A, E>) =>
        (...args: Args) =>
          Effect.tap(write(...args), () => graphsSeen.clear());
      const changesOf = (providerId: string) => {
        const found = changes.get(providerId);
        if (found !== undefined) return found;
        const made: MemberChanges = { fields: false, members: new Map() };
        changes.set(providerId, made);
        return made;
      };
      const rememberServer = (row: ServerRow | undefined) => {
        if (row !== undefined && !before.has(row.id) && !written.has(row.id)) before.set(row.id, row);
      };
      const rememberProvider = (row: ProviderRow | undefined) => {
        if (row !== undefined && !providersSeen.has(row.id)) providersSeen.set(row.id, row);
      };
      const member =
        (kind: string) => (row: { readonly id: string; readonly providerId: string; readonly name: string }) =>
          changesOf(row.providerId).members.set(row.id, `${kind} '${row.name}'`);

      const recording: StorageTx = {
        ...tx,
        // Every other write that could change a graph's rows: a graph read before it is not the written one.
        deleteServer: afterWrite(tx.deleteServer),
        insertProvider: afterWrite(tx.insertProvider),
        deleteProvider: afterWrite(tx.deleteProvider),
        insertTool: afterWrite(tx.insertTool),
        deleteTool: afterWrite(tx.deleteTool),
        insertPrompt: afterWrite(tx.insertPrompt),
        deletePrompt: afterWrite(tx.deletePrompt),
        insertResource: afterWrite(tx.insertResource),
        deleteResource: afterWrite(tx.deleteResource),
        findServer: (id) => Effect.tap(tx.findServer(id), rememberServer),
        findServerGraph: (id) =>
          Effect.tap(tx.findServerGraph(id), (graph) => {
            rememberServer(graph?.server);
            if (graph !== undefined) graphsSeen.set(graph.server.id, graph);
          }),
        findProvider: (id) => Effect.tap(tx.findProvider(id), rememberProvider),
        findProviderWithTools: (id) =>
          Effect.tap(tx.findProviderWithTools(id), (found) => rememberProvider(found?.provider)),
        findProvidersAndTools: (providerIds, toolIds, variablesOf) =>
          Effect.tap(tx.findProvidersAndTools(providerIds, toolIds, variablesOf), (found) => {
            for (const row of found.providers) rememberProvider(row);
            for (const row of found.tools) if (!toolsSeen.has(row.id)) toolsSeen.set(row.id, row);
            if (variablesOf === undefined || found.variables === undefined) return;
            const seen = variablesSeen.get(variablesOf) ?? { named: new Set<string>(), rows: new Map() };
            for (const name of variablesReferencedBy(found.tools)) seen.named.add(name);
            for (const row of found.variables) seen.rows.set(row.name, row);
            variablesSeen.set(variablesOf, seen);
          }),
        insertServer: (row, maxServers) =>
          Effect.tap(afterWrite(tx.insertServer)(row, maxServers), (inserted) => {
            if (inserted) written.set(row.id, row);
          }),
        updateServer: (row, expected) =>
          Effect.tap(afterWrite(tx.updateServer)(row, expected), (applied) => {
            if (applied) written.set(row.id, row);
          }),
        updateTool: (row) => Effect.tap(afterWrite(tx.updateTool)(row), () => member("tool")(row)),
        updatePrompt: (row) => Effect.tap(afterWrite(tx.updatePrompt)(row), () => member("prompt")(row)),
        updateResource: (row) => Effect.tap(afterWrite(tx.updateResource)(row), () => member("resource")(row)),
        updateProvider: (row, expected) =>
          Effect.flatMap(
            providersSeen.has(row.id) ? Effect.succeed(providersSeen.get(row.id)) : tx.findProvider(row.id),
            (previous) =>
              Effect.tap(afterWrite(tx.updateProvider)(row, expected), (applied) => {
                if (!applied) return;
                if (previous !== undefined && providerFieldsDiffer(previous, row)) changesOf(row.id).fields = true;
                providersSeen.set(row.id, row);
              }),
          ),
      };

      /** Moves the version of the servers a member change reached; answers the summary of each. */
      const bumpReached = (at: Date) =>
        Effect.gen(function* () {
          const summaries = new Map<string, Array<string>>();
          for (const [providerId, change] of changes) {
            if (!change.fields && change.members.size === 0) continue;
            const users = yield* tx.serversReferencing({ kind: "provider", id: providerId });
            const name = providersSeen.get(providerId)?.name ?? providerId;
            for (const user of users) {
              if (written.has(user.id)) continue;
              const server = yield* tx.findServer(user.id);
              if (server === undefined) continue;
              const used = new Set([
                ...server.providers.flatMap((link) => link.toolIds),
                ...server.promptIds,
                ...server.resourceIds,
              ]);
              const lines = [
                ...(change.fields ? [`provider '${name}' changed`] : []),
                ...[...change.members].filter(([id]) => used.has(id)).map(([, what]) => `${what} of '${name}' changed`),
              ];
              if (lines.length > 0) summaries.set(user.id, [...(summaries.get(user.id) ?? []), ...lines]);
            }
          }
          // In id order, so two writers reaching the same servers take their locks in the same order.
          for (const id of [...summaries.keys()].sort()) {
            yield* tx.lock(`server:${id}`);
            const server = yield* tx.findServer(id);
            if (server === undefined) continue;
            const next: ServerRow = { ...server, version: server.version + 1, updatedAt: at };
            const applied = yield* Effect.orDie(tx.updateServer(next, server.version));
            if (!applied) return yield* new StaleRead({ conditional: false });
            written.set(id, next);
          }
          return summaries;
        });

      /**
       * The graph of a written server from the rows this write read: the graph it read after its last write
       * (a PATCH's answer), or, when it read every member and changed none, its lookup's rows (a create or a
       * recomposition: no read of its own, so none under the quota lock); else undefined.
       */
      const seenGraph = (row: ServerRow): ServerGraph | undefined => {
        const read = graphsSeen.get(row.id);
        if (read !== undefined && read.server.version === row.version) return read;
        if (changes.size > 0 || row.promptIds.length > 0 || row.resourceIds.length > 0) return undefined;
        const providers: Array<ProviderRow> = [];
        const tools: Array<ToolRow> = [];
        for (const link of row.providers) {
          const provider = providersSeen.get(link.providerId);
          if (provider === undefined) return undefined;
          providers.push(provider);
          for (const id of link.toolIds) {
            const tool = toolsSeen.get(id);
            if (tool === undefined) return undefined;
            tools.push(tool);
          }
        }
        return { server: row, providers, tools, prompts: [], resources: [] };
      };
      /** The variables read with the tools, when they cover the names asked for; else a read. */
      const documentTx: StorageTx = {
        ...tx,
        findVariablesByName: (tenant, names) => {
          const seen = variablesSeen.get(tenant);
          if (seen === undefined || !names.every((name) => seen.named.has(name)))
            return tx.findVariablesByName(tenant, names);
          return Effect.succeed(names.flatMap((name) => seen.rows.get(name) ?? []));
        },
      };

      const record = Effect.gen(function* () {
        const at = new Date(yield* Clock.currentTimeMillis);
        const reached = changes.size === 0 ? new Map<string, Array<string>>() : yield* bumpReached(at);
        if (written.size === 0) return;
        const override = yield* FiberRef.get(RevisionSummary);
        for (const [id, row] of written) {
          const graph = seenGraph(row) ?? (yield* tx.findServerGraph(id));
          if (graph === undefined) continue;
          const document = yield* exportDocumentOf(documentTx, graph);
          // A writer of another tenant (the owner of a PUBLIC provider) is not named to this server's tenant.
          const ownWriter = context !== undefined && context.tenant === row.tenant;
          const through = reached.get(id);
          const summary =
            through !== undefined
              ? joinCapped(ownWriter ? through : [...through, "by the provider's owner"])
              : (override ?? summaryOfRowChange(before.get(id), row));
          yield* tx.insertServerRevision({
            id: newId(),
            serverId: id,
            tenant: row.tenant,
            version: row.version,
            createdAt: at,
            actorSub: ownWriter ? context.sub : "",
            actorClientId: ownWriter ? context.clientId : "",
            summary,
            document,
            content: revisionContentOf(row),
          });
          if (row.version > REVISIONS_KEPT) yield* tx.pruneServerRevisions(id, row.version - REVISIONS_KEPT + 1);
        }
      });
      return Effect.tap(work(recording), () => record);
    });
