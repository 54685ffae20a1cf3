import { Effect } from "effect";
import { AlreadyExists, PermissionDenied } from "../errors/domain-errors.js";
import type { PromptRow, ProviderRow, ResourceRow, ToolRow } from "../storage/rows.js";
import type { StorageTx } from "../storage/storage-port.js";
import type { Actor } from "../tenancy/actor.js";
import type { Quotas } from "../tenancy/quotas.js";
import type { ServerImportReport } from "./export-schema.js";
import type { Mutable } from "./server-import-report.js";

// What every step of one server import shares: its transaction, actor, clock, quotas, the report being filled
// and the ids of the records it creates (a dry run's answer leaves them out).

/** One server import in progress, inside its transaction. */
export interface ImportRun {
  readonly tx: StorageTx;
  readonly actor: Actor;
  readonly at: Date;
  readonly quotas: typeof Quotas.Service;
  readonly report: Mutable<ServerImportReport>;
  readonly newIds: Set<string>;
}

/** A provider of the document as resolved in the tenant: its row and the members the server gets. */
export interface ResolvedProvider {
  readonly row: ProviderRow;
  readonly tools: ReadonlyArray<ToolRow>;
  readonly prompts: ReadonlyArray<PromptRow>;
  readonly resources: ReadonlyArray<ResourceRow>;
}

/** Fails unless the actor may create `what` (creating providers or members needs `provider:create`). */
export const needCreate = (run: ImportRun, what: string) =>
  run.actor.scopes.has("provider:create")
    ? Effect.void
    : Effect.fail(
        new PermissionDenied({
          detail: `importing this document creates ${what}, which needs the scope 'provider:create'`,
          requiredScope: "provider:create",
        }),
      );

/** Inserts a document's member rows, mapping a uniqueness breach to 409 naming the document path. */
export const insertAll = <R extends { readonly id: string }>(
  run: ImportRun,
  rows: ReadonlyArray<R>,
  insert: (row: R) => Effect.Effect<void, { readonly _tag: "UniqueViolation" | "ReferenceViolation" }>,
  at: (i: number) => string,
) =>
  Effect.forEach(
    rows.entries(),
    ([i, row]) =>
      insert(row).pipe(
        Effect.tap(() => run.newIds.add(row.id)),
        Effect.catchAll((e) =>
          Effect.fail(
            new AlreadyExists({
              detail: `${at(i)}: ${e._tag === "UniqueViolation" ? "the name is taken on the tenant's provider" : "its provider is gone"}`,
            }),
          ),
        ),
      ),
    { discard: true },
  );
