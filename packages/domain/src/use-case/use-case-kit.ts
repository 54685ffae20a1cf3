import { Clock, Effect, Option } from "effect";
import { AuditContext } from "../audit/audit-context.js";
import { auditEventOf, recordingTx } from "../audit/audit-recorder.js";
import { notingGitSync } from "../git-connection/git-sync-noting.js";
import { recordingRevisions } from "../revision/revision-recording.js";
import {
  Aborted,
  AlreadyExists,
  FailedPrecondition,
  NotFound,
  PermissionDenied,
  PreconditionFailed,
  type Unavailable,
} from "../errors/domain-errors.js";
import { visibleTo } from "../provider/provider-visibility.js";
import type { ProviderRow } from "../storage/rows.js";
import type { ReferenceViolation, UniqueViolation } from "../storage/storage-errors.js";
import { type ReadTx, Storage, type StorageTx } from "../storage/storage-port.js";
import type { Actor } from "../tenancy/actor.js";
import { StaleRead } from "./stale-read.js";

// Building blocks shared by the use cases: time, access rules, conflict mapping and optimistic retries.

/** The current time from effect's Clock (so tests can control it), at millisecond precision. */
export const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms));

/** Maps a storage uniqueness breach to 409 ALREADY_EXISTS (docs/api-rules.md §6). */
export const alreadyExists = (e: UniqueViolation) =>
  new AlreadyExists({ detail: `a ${e.kind} named '${e.name}' already exists` });

/** Maps a storage reference breach to 409 FAILED_PRECONDITION (docs/api-rules.md §4). */
export const blockedByReference = (e: ReferenceViolation) =>
  new FailedPrecondition({ detail: e.detail, references: [] });

export { StaleRead };

const MAX_ATTEMPTS = 5;

/** `work`, recording in the same transaction the audit event of what it wrote (if it wrote anything). */
const audited =
  <A, E, R>(work: (tx: StorageTx) => Effect.Effect<A, E, R>, context: typeof AuditContext.Service) =>
  (tx: StorageTx) =>
    Effect.suspend(() => {
      const recorder = recordingTx(tx);
      return Effect.tap(work(recorder.tx), () =>
        Effect.flatMap(now, (at) => {
          const event = auditEventOf(recorder.changes(), context, at);
          return event === undefined ? Effect.void : tx.insertAuditEvent(event);
        }),
      );
    });

/**
 * Runs `work` in a transaction, retrying when an unconditional compare-and-set lost a race. A conditional
 * write (the client named a version) that loses answers 409 ABORTED at once. With an AuditContext, a
 * transaction that wrote records also stores their audit event (docs/api-rules.md §18); every change of a
 * server's content records a revision (docs/api-rules.md §21), and every write of a server or provider notes
 * the pushes it makes due (docs/api-rules.md §17).
 */
export const transact = <A, E, R>(work: (tx: StorageTx) => Effect.Effect<A, E | StaleRead, R>) =>
  Effect.flatMap(Effect.zip(Storage, Effect.serviceOption(AuditContext)), ([storage, context]) => {
    const own = Option.isSome(context) ? audited(work, context.value) : work;
    const run = notingGitSync(recordingRevisions(own, Option.getOrUndefined(context)));
    const attempt = (left: number): Effect.Effect<A, Exclude<E, StaleRead> | Aborted | Unavailable, R> =>
      storage.transaction(run).pipe(
        Effect.catchIf(
          (e): e is StaleRead => e instanceof StaleRead,
          (stale) =>
            stale.conditional || left <= 1
              ? Effect.fail(
                  new Aborted({ detail: "the record was changed by another request; read it again and retry" }),
                )
              : attempt(left - 1),
        ),
      ) as Effect.Effect<A, Exclude<E, StaleRead> | Aborted | Unavailable, R>;
    return attempt(MAX_ATTEMPTS);
  });

/** Runs read-only work. */
export const read = <A, E, R>(work: (tx: ReadTx) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(Storage, (storage) => storage.read(work));

/**
 * Serialises writers of one provider (its fields and its tools, prompts and resources, which bump its
 * version), so concurrent child writes queue instead of exhausting optimistic retries.
 */
export const lockProvider = (tx: StorageTx, id: string) => tx.lock(`provider:${id}`);

/** Serialises writers of one server (its fields, associations and tokens). */
export const lockServer = (tx: StorageTx, id: string) => tx.lock(`server:${id}`);

/** Serialises the creates counted by one quota, so concurrent creates cannot overshoot it. */
export const lockQuota = (tx: StorageTx, quota: string, owner: string) => tx.lock(`quota:${quota}:${owner}`);

/** True when the actor may see the provider: its own, or a PUBLIC one. */
export const canSee = (actor: Actor, row: ProviderRow): boolean => visibleTo(actor.tenant, row);

/** A provider the actor can see (its own, or any PUBLIC one); otherwise 404. */
export const visibleProvider = (tx: ReadTx, actor: Actor, id: string) =>
  Effect.flatMap(tx.findProvider(id), (row) =>
    row !== undefined && canSee(actor, row) ? Effect.succeed(row) : Effect.fail(new NotFound({ kind: "provider", id })),
  );

/** A provider the actor may change: 404 when invisible, 403 when it is another tenant's PUBLIC provider. */
export const ownedProvider = (tx: ReadTx, actor: Actor, id: string) =>
  Effect.flatMap(visibleProvider(tx, actor, id), (row) =>
    row.tenant === actor.tenant
      ? Effect.succeed(row)
      : Effect.fail(new PermissionDenied({ detail: `provider '${id}' belongs to another tenant and is read-only` })),
  );

/** A record owned by the actor's tenant; anything else is 404. */
export const owned = <T extends { readonly tenant: string }>(
  row: T | undefined,
  actor: Actor,
  kind: string,
  id: string,
): Effect.Effect<T, NotFound> =>
  row !== undefined && row.tenant === actor.tenant ? Effect.succeed(row) : Effect.fail(new NotFound({ kind, id }));

/** Fails with 412 when an `If-Match` version was given and differs from the stored one. */
export const checkIfMatch = (kind: string, stored: number, ifMatch: number | undefined) =>
  ifMatch === undefined || ifMatch === stored
    ? Effect.void
    : Effect.fail(
        new PreconditionFailed({ detail: `If-Match does not match the current ETag of the ${kind} (W/"${stored}")` }),
      );

/**
 * Records that a provider changed (its own fields, or its tools, prompts or resources): the next version,
 * stored with compare-and-set so concurrent child writes cannot both claim the same version.
 */
export const bumpProvider = (tx: StorageTx, provider: ProviderRow, at: Date) =>
  Effect.flatMap(
    tx.updateProvider({ ...provider, version: provider.version + 1, updatedAt: at }, provider.version),
    (applied) => (applied ? Effect.void : Effect.fail(new StaleRead({ conditional: false }))),
  ).pipe(Effect.catchTag("UniqueViolation", (e) => Effect.fail(alreadyExists(e))));

/**
 * The 409 for a record that servers still use, saying only what the actor may see: how many of its own
 * servers (listed in `references`), and only that other tenants' servers exist, never how many.
 */
export const usedByServers = (
  actor: Actor,
  kind: string,
  id: string,
  users: ReadonlyArray<{ readonly id: string; readonly tenant: string }>,
): FailedPrecondition => {
  const own = users.filter((s) => s.tenant === actor.tenant).map((s) => s.id);
  const others = own.length < users.length;
  const parts = [
    ...(own.length > 0 ? [`${own.length} of your server(s)`] : []),
    ...(others ? ["servers of other tenants"] : []),
  ];
  return new FailedPrecondition({ detail: `${kind} '${id}' is used by ${parts.join(" and ")}`, references: own });
};
