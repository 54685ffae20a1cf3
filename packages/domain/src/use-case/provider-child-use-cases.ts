import { Effect, type Schema } from "effect";
import { type AlreadyExists, type InvalidArgument, NotFound, type ResourceExhausted } from "../errors/domain-errors.js";
import { newId } from "../ids/id.js";
import type { ReferenceViolation, UniqueViolation } from "../storage/storage-errors.js";
import type { ReadTx, StorageTx } from "../storage/storage-port.js";
import type { Actor } from "../tenancy/actor.js";
import type { Quotas } from "../tenancy/quotas.js";
import { validateIds, validateInput } from "../validation/validate-input.js";
import {
  alreadyExists,
  blockedByReference,
  bumpProvider,
  lockProvider,
  now,
  ownedProvider,
  read,
  transact,
  usedByServers,
  visibleProvider,
} from "./use-case-kit.js";

/** The columns every record owned by a provider has. */
interface ChildBase {
  readonly id: string;
  readonly providerId: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** The storage reads of one kind of provider child. */
interface ChildReads<Row> {
  readonly find: (id: string) => Effect.Effect<Row | undefined>;
  readonly list: (providerId: string) => Effect.Effect<ReadonlyArray<Row>>;
}

/** The storage writes of one kind of provider child. */
interface ChildWrites<Row> {
  readonly insert: (row: Row) => Effect.Effect<void, UniqueViolation | ReferenceViolation>;
  readonly update: (row: Row) => Effect.Effect<void, UniqueViolation>;
  readonly remove: (id: string) => Effect.Effect<void, ReferenceViolation>;
}

/** What differs between tools, prompts and resources; the rules they share live in `providerChildUseCases`. */
export interface ProviderChildSpec<Row extends ChildBase, Create, Patch, Rec, R = never> {
  readonly kind: "tool" | "prompt" | "resource";
  // biome-ignore lint/suspicious/noExplicitAny: the encoded side is whatever JSON the schema accepts
  readonly create: Schema.Schema<Create, any>;
  // biome-ignore lint/suspicious/noExplicitAny: as above
  readonly patch: Schema.Schema<Patch, any>;
  readonly reads: (tx: ReadTx) => ChildReads<Row>;
  readonly store: (tx: StorageTx) => ChildWrites<Row>;
  readonly build: (input: Create, base: ChildBase) => Row;
  readonly merge: (stored: Row, patch: Patch) => Row;
  readonly toRecord: (row: Row) => Rec;
  /** Extra checks of a row about to be written (`previous` on update). */
  readonly check?: (
    tx: StorageTx,
    row: Row,
    previous: Row | undefined,
  ) => Effect.Effect<void, InvalidArgument | AlreadyExists | ResourceExhausted, Quotas>;
  /** Checks of the decoded write that need no store (run before the transaction). */
  readonly inspect?: (fields: Create | Patch) => Effect.Effect<void, InvalidArgument, R>;
}

/**
 * The create/get/list/update/delete steps of a record owned by a provider (each concept exports them as
 * use cases under its own operation names). Reading needs the provider
 * to be visible; writing needs the actor to own it; every write is a change (a new version) of the provider.
 */
export const providerChildUseCases = <Row extends ChildBase, Create, Patch, Rec, R = never>(
  spec: ProviderChildSpec<Row, Create, Patch, Rec, R>,
) => {
  const { kind } = spec;
  const idName = `${kind}ID`;
  const childOf = (tx: ReadTx, providerId: string, id: string) =>
    Effect.flatMap(spec.reads(tx).find(id), (row) =>
      row !== undefined && row.providerId === providerId
        ? Effect.succeed(row)
        : Effect.fail(new NotFound({ kind, id })),
    );
  const check = (tx: StorageTx, row: Row, previous: Row | undefined) =>
    spec.check === undefined ? Effect.void : spec.check(tx, row, previous);
  const inspect = (fields: Create | Patch): Effect.Effect<void, InvalidArgument, R> =>
    spec.inspect === undefined ? Effect.void : spec.inspect(fields);

  return {
    create: (actor: Actor, providerId: string, fields: Create) =>
      Effect.gen(function* () {
        yield* validateIds([["id", providerId]]);
        const input = yield* validateInput(kind, spec.create, fields);
        yield* inspect(input);
        return yield* transact((tx) =>
          Effect.gen(function* () {
            yield* lockProvider(tx, providerId);
            const provider = yield* ownedProvider(tx, actor, providerId);
            const at = yield* now;
            const row = spec.build(input, { id: newId(), providerId, createdAt: at, updatedAt: at });
            yield* check(tx, row, undefined);
            yield* spec
              .store(tx)
              .insert(row)
              .pipe(
                Effect.catchTags({
                  UniqueViolation: (e) => Effect.fail(alreadyExists(e)),
                  ReferenceViolation: (e) => Effect.fail(blockedByReference(e)),
                }),
              );
            yield* bumpProvider(tx, provider, at);
            return spec.toRecord(row);
          }),
        );
      }),

    get: (actor: Actor, providerId: string, id: string) =>
      Effect.gen(function* () {
        yield* validateIds([
          ["id", providerId],
          [idName, id],
        ]);
        return yield* read((tx) =>
          Effect.gen(function* () {
            yield* visibleProvider(tx, actor, providerId);
            return spec.toRecord(yield* childOf(tx, providerId, id));
          }),
        );
      }),

    list: (actor: Actor, providerId: string) =>
      Effect.gen(function* () {
        yield* validateIds([["id", providerId]]);
        return yield* read((tx) =>
          Effect.gen(function* () {
            yield* visibleProvider(tx, actor, providerId);
            return (yield* spec.reads(tx).list(providerId)).map(spec.toRecord);
          }),
        );
      }),

    update: (actor: Actor, providerId: string, id: string, fields: Patch) =>
      Effect.gen(function* () {
        yield* validateIds([
          ["id", providerId],
          [idName, id],
        ]);
        const patch = yield* validateInput(kind, spec.patch, fields);
        yield* inspect(patch);
        return yield* transact((tx) =>
          Effect.gen(function* () {
            yield* lockProvider(tx, providerId);
            const provider = yield* ownedProvider(tx, actor, providerId);
            const stored = yield* childOf(tx, providerId, id);
            const merged = spec.merge(stored, patch);
            if (JSON.stringify({ ...merged, updatedAt: 0 }) === JSON.stringify({ ...stored, updatedAt: 0 }))
              return spec.toRecord(stored);
            const at = yield* now;
            const row = { ...merged, updatedAt: at };
            yield* check(tx, row, stored);
            yield* spec
              .store(tx)
              .update(row)
              .pipe(Effect.catchTag("UniqueViolation", (e) => Effect.fail(alreadyExists(e))));
            yield* bumpProvider(tx, provider, at);
            return spec.toRecord(row);
          }),
        );
      }),

    remove: (actor: Actor, providerId: string, id: string) =>
      Effect.gen(function* () {
        yield* validateIds([
          ["id", providerId],
          [idName, id],
        ]);
        yield* transact((tx) =>
          Effect.gen(function* () {
            yield* lockProvider(tx, providerId);
            const provider = yield* ownedProvider(tx, actor, providerId);
            yield* childOf(tx, providerId, id);
            const users = yield* tx.serversReferencing({ kind, id });
            if (users.length > 0) return yield* usedByServers(actor, kind, id, users);
            yield* spec
              .store(tx)
              .remove(id)
              .pipe(Effect.catchTag("ReferenceViolation", (e) => Effect.fail(blockedByReference(e))));
            yield* bumpProvider(tx, provider, yield* now);
          }),
        );
      }),
  };
};
