import { Effect, Either } from "effect";
import { Aborted, type InvalidArgument, invalidField, NotFound, ResourceExhausted } from "../errors/domain-errors.js";
import { newId } from "../ids/id.js";
import type { ReadTx, ReferenceViolation, ServerGraph, ServerRow, StorageTx } from "../storage/index.js";
import type { Actor } from "../tenancy/actor.js";
import { Quotas } from "../tenancy/quotas.js";
import {
  alreadyExists,
  checkIfMatch,
  lockQuota,
  lockServer,
  now,
  owned,
  read,
  StaleRead,
  transact,
} from "../use-case/use-case-kit.js";
import { defineUseCase, type NoInput } from "../use-case/define-use-case.js";
import { invalid } from "../validation/decode-write.js";
import { validateIds, validateInput } from "../validation/validate-input.js";
import { resolveGitTarget } from "../git-connection/git-connection-use-cases.js";
import { checkDistinctToolNames, type Composition, resolveComposition } from "./server-composition.js";
import { DEFAULT_MAX_RESULT_TOKENS } from "../response-shaping/response-filter.js";
import { toServerRecord } from "./server-record.js";
import { ServerCreate, ServerPatch } from "./server-schema.js";

const EMPTY: Composition = { providers: [], resourceIds: [], promptIds: [] };

/** `description` is accepted as an alias of `instructions`; giving both with different texts is an error. */
const instructionsOf = (input: ServerPatch) =>
  input.instructions !== undefined && input.description !== undefined && input.instructions !== input.description
    ? Effect.fail(invalidField("server.description", "is an alias of instructions and must not differ from it"))
    : Effect.succeed(input.instructions ?? input.description);

/** The server as the API returns it, read in one storage round trip. */
const serverRecord = (tx: StorageTx, id: string) =>
  Effect.flatMap(tx.findServerGraph(id), (graph) =>
    graph === undefined ? Effect.fail(new NotFound({ kind: "server", id })) : Effect.succeed(toServerRecord(graph)),
  );

/** Whether `actor` may read server `graph` (getServer's rule: its own tenant's servers only). */
export const mayReadServerGraph = (actor: Actor, graph: ServerGraph): boolean => graph.server.tenant === actor.tenant;

/** A server of the actor's tenant with the records its response shows (one storage round trip), or 404. */
export const ownedServerGraph = (tx: ReadTx, actor: Actor, id: string) =>
  Effect.flatMap(tx.findServerGraph(id), (graph) =>
    graph === undefined || !mayReadServerGraph(actor, graph)
      ? Effect.fail(new NotFound({ kind: "server", id }))
      : Effect.succeed(graph),
  );

/** A server of the actor's tenant, or 404. */
export const ownedServer = (tx: ReadTx, actor: Actor, id: string) =>
  Effect.flatMap(tx.findServer(id), (row) => owned(row, actor, "server", id));

/**
 * A record a server write names was deleted after the write read it (only a database running writers
 * concurrently gets here): the 400 a store that runs one writer at a time answers, not a 409.
 */
const deletedMeanwhile = (e: ReferenceViolation) =>
  invalid([{ path: "server", message: `unknown record: ${e.detail}` }]);

/** Stores a changed server with compare-and-set on its version; `gone` answers a reference deleted meanwhile. */
export const saveServer = (
  tx: StorageTx,
  stored: ServerRow,
  next: ServerRow,
  conditional: boolean,
  gone: (e: ReferenceViolation) => InvalidArgument = deletedMeanwhile,
) =>
  Effect.gen(function* () {
    const applied = yield* tx.updateServer(next, stored.version).pipe(
      Effect.catchTags({
        UniqueViolation: (e) => Effect.fail(alreadyExists(e)),
        ReferenceViolation: (e) => Effect.fail(gone(e)),
      }),
    );
    if (!applied) return yield* new StaleRead({ conditional });
  });

/** Input of `createServer`: the server's fields. */
export interface CreateServerInput {
  readonly server: ServerCreate;
}

/** Input of `getServer`. */
export interface GetServerInput {
  readonly serverId: string;
}

/**
 * Input of `updateServer`: the fields to change. `expectedVersion` makes the write conditional (412 when
 * the server moved on); a `version` among the fields does too (409 ABORTED).
 */
export interface UpdateServerInput {
  readonly serverId: string;
  readonly server: ServerPatch;
  readonly expectedVersion?: number | undefined;
}

/** Input of `deleteServer`; `expectedVersion` makes the delete conditional (412). */
export interface DeleteServerInput {
  readonly serverId: string;
  readonly expectedVersion?: number | undefined;
}

/**
 * Creates a server of the actor's tenant from the providers, tools, resources and prompts it names.
 *
 * The quota is checked by the insert itself, under the tenant's quota lock, which it takes: concurrent creates
 * of a tenant wait for each other from their insert to their commit only, not while each reads what it names
 * (the lock serialises them, so the shorter it is held the more creates a second). A write that the quota
 * and a check of what it names would both refuse is refused for the quota, as when the count came first.
 */
export const createServer = defineUseCase("createServer", (actor: Actor, { server }: CreateServerInput) =>
  Effect.gen(function* () {
    const input = yield* validateInput("server", ServerCreate, server);
    const description = yield* instructionsOf(input);
    const quotas = yield* Quotas;
    const full = () => new ResourceExhausted({ detail: `the tenant already has ${quotas.serversPerTenant} servers` });
    const created = yield* transact((tx) =>
      Effect.gen(function* () {
        const named = yield* Effect.either(
          Effect.gen(function* () {
            const resolved = yield* resolveComposition(tx, actor, input, EMPTY);
            yield* checkDistinctToolNames(resolved.chosenTools);
            return { ...resolved, git: yield* resolveGitTarget(tx, actor, input, undefined) };
          }),
        );
        if (Either.isLeft(named)) {
          const over = (yield* tx.countServers(actor.tenant)) >= quotas.serversPerTenant;
          return yield* Effect.fail(over ? full() : named.left);
        }
        const { composition, chosenTools, git } = named.right;
        const at = yield* now;
        const row: ServerRow = {
          id: newId(),
          tenant: actor.tenant,
          createdAt: at,
          updatedAt: at,
          version: 1,
          name: input.name,
          description: description ?? "",
          requestHeadersProxyEnabled: input.requestHeadersProxyEnabled ?? false,
          dynamicToolDiscoveryEnabled: input.dynamicToolDiscoveryEnabled ?? false,
          maxResultTokens: input.maxResultTokens ?? DEFAULT_MAX_RESULT_TOKENS,

          approvalPolicy: input.approvalPolicy ?? "NONE",
          toolSettings: [],
          ...composition,
          ...git.fields,
        };
        yield* lockQuota(tx, "servers", actor.tenant);
        const inserted = yield* tx.insertServer(row, quotas.serversPerTenant).pipe(
          Effect.catchTags({
            UniqueViolation: (e) => Effect.fail(alreadyExists(e)),
            ReferenceViolation: (e) => Effect.fail(deletedMeanwhile(e)),
          }),
        );
        if (!inserted) return yield* full();
        // Everything the new server shows was read by this transaction (its git connection's kind by
        // resolveGitTarget's check): no second read for the response, which is built once the transaction ended.
        return { server: row, tools: chosenTools, ...named.right.named, gitProvider: git.kind ?? null };
      }),
    );
    return toServerRecord(created);
  }),
);

/** A server of the actor's tenant with its full nested records. */
export const getServer = defineUseCase("getServer", (actor: Actor, { serverId: id }: GetServerInput) =>
  Effect.gen(function* () {
    yield* validateIds([["id", id]]);
    return yield* read((tx) => Effect.map(ownedServerGraph(tx, actor, id), toServerRecord));
  }),
);

/** Every server of the actor's tenant, in creation order. */
export const listServers = defineUseCase("listServers", (actor: Actor, _input: NoInput) =>
  read((tx) => Effect.map(tx.listServerGraphs(actor.tenant), (graphs) => graphs.map(toServerRecord))),
);

/** Changes a server of the actor's tenant (a new version). */
export const updateServer = defineUseCase(
  "updateServer",
  (actor: Actor, { serverId: id, server, expectedVersion: ifMatch }: UpdateServerInput) =>
    Effect.gen(function* () {
      yield* validateIds([["id", id]]);
      const patch = yield* validateInput("server", ServerPatch, server);
      const description = yield* instructionsOf(patch);
      return yield* transact((tx) =>
        Effect.gen(function* () {
          yield* lockServer(tx, id);
          const stored = yield* ownedServer(tx, actor, id);
          yield* checkIfMatch("server", stored.version, ifMatch);
          if (patch.version !== undefined && patch.version !== stored.version)
            return yield* new Aborted({
              detail: `version ${patch.version} does not match the stored version ${stored.version}`,
            });
          const { composition, chosenTools } = yield* resolveComposition(tx, actor, patch, stored);
          yield* checkDistinctToolNames(chosenTools, stored.toolSettings);
          const git = yield* resolveGitTarget(tx, actor, patch, stored);
          const next: ServerRow = {
            ...stored,
            name: patch.name ?? stored.name,
            description: description ?? stored.description,
            requestHeadersProxyEnabled: patch.requestHeadersProxyEnabled ?? stored.requestHeadersProxyEnabled,
            dynamicToolDiscoveryEnabled: patch.dynamicToolDiscoveryEnabled ?? stored.dynamicToolDiscoveryEnabled,
            maxResultTokens: patch.maxResultTokens ?? stored.maxResultTokens,

            approvalPolicy: patch.approvalPolicy ?? stored.approvalPolicy ?? "NONE",
            ...composition,
            ...git.fields,
          };
          if (JSON.stringify(next) !== JSON.stringify(stored)) {
            const conditional = patch.version !== undefined || ifMatch !== undefined;
            yield* saveServer(tx, stored, { ...next, version: stored.version + 1, updatedAt: yield* now }, conditional);
          }
          return yield* serverRecord(tx, id);
        }),
      );
    }),
);

/** Deletes a server of the actor's tenant and revokes its tokens. */
export const deleteServer = defineUseCase(
  "deleteServer",
  (actor: Actor, { serverId: id, expectedVersion: ifMatch }: DeleteServerInput) =>
    Effect.gen(function* () {
      yield* validateIds([["id", id]]);
      yield* transact((tx) =>
        Effect.gen(function* () {
          yield* lockServer(tx, id);
          const stored = yield* ownedServer(tx, actor, id);
          yield* checkIfMatch("server", stored.version, ifMatch);
          yield* tx.deleteServer(id);
        }),
      );
    }),
);

/** This file's use cases under their operation names (a row of the domain's `USE_CASES`). */
export const SERVER_USE_CASES = { createServer, getServer, listServers, updateServer, deleteServer } as const;
