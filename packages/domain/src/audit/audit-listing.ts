import { Effect, Schema } from "effect";
import { pageLimit, readKeysetPage } from "../listing/keyset-page.js";
import { queryDecoder } from "../listing/query-parameters.js";
import type { Actor } from "../tenancy/actor.js";
import { defineUseCase } from "../use-case/define-use-case.js";
import { now, read, transact } from "../use-case/use-case-kit.js";
import { validateInput } from "../validation/validate-input.js";
import {
  type AuditEventPage,
  type AuditEventRow,
  AuditListParameters,
  type AuditListQuery,
  toAuditEventRecord,
} from "./audit-schema.js";

interface Filters {
  readonly targetId?: string | undefined;
  readonly operation?: string | undefined;
  readonly since?: number | undefined;
}

/**
 * Decodes the query string of `GET /audit-events` with `AuditListParameters`: every bad, repeated or unknown
 * parameter is reported at once, located by its name. Whether a page token is valid still needs the signer
 * (the use case checks it).
 */
export const decodeAuditListQuery = queryDecoder(AuditListParameters);

/** One page of the audit events of the actor's tenant, newest first (`GET /audit-events`). */
export const listAuditEvents = defineUseCase("listAuditEvents", (actor: Actor, query: AuditListQuery) =>
  Effect.gen(function* () {
    yield* validateInput("", Schema.typeSchema(AuditListParameters), query);
    const filters: Filters = {
      targetId: query.targetID || undefined,
      operation: query.operation || undefined,
      since: query.since ? Date.parse(query.since) : undefined,
    };
    const listing = {
      tenant: actor.tenant,
      // The "audit" prefix keeps a provider listing's token from being replayed here.
      filterKey: JSON.stringify(["audit", filters]),
      timeKey: "a",
      limit: pageLimit(query.limit),
      token: query.token,
      cursorOf: (row: AuditEventRow) => ({ at: row.at, id: row.id }),
    };
    const page = yield* readKeysetPage(listing, (after, limit) =>
      read((tx) =>
        tx.searchAuditEvents({
          tenant: actor.tenant,
          targetId: filters.targetId,
          operation: filters.operation,
          since: filters.since === undefined ? undefined : new Date(filters.since),
          after,
          limit,
        }),
      ),
    );
    const { matchCount, nextToken } = page;
    return { auditEvents: page.items.map(toAuditEventRecord), matchCount, nextToken } satisfies AuditEventPage;
  }),
);

/** How many events one prune transaction deletes at most, so pruning never holds long locks. */
export const AUDIT_PRUNE_BATCH = 1_000;

/**
 * Deletes the audit events older than `retentionDays` (every tenant's), in batches of `batch` events, one
 * transaction each; answers how many went. With nothing to delete it only reads (a committed transaction moves
 * every instance's read caches on).
 */
export const pruneAuditEvents = (retentionDays: number, batch: number = AUDIT_PRUNE_BATCH) =>
  Effect.gen(function* () {
    const cutoff = new Date((yield* now).getTime() - retentionDays * 86_400_000);
    let total = 0;
    if (!(yield* read((tx) => tx.hasAuditEventsBefore(cutoff)))) return total;
    for (;;) {
      const deleted = yield* transact((tx) => tx.pruneAuditEvents(cutoff, batch));
      total += deleted;
      if (deleted < batch) return total;
    }
  });

/** This file's use cases under their operation names (a row of the domain's `USE_CASES`). */
export const AUDIT_USE_CASES = { listAuditEvents } as const;
