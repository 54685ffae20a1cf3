import { Effect, Schema } from "effect";
import type { FieldProblem, InvalidArgument } from "../errors/domain-errors.js";
import { isId } from "../ids/id.js";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "../provider/provider-schema.js";
import { OPERATIONS } from "../scopes/scope-policy.js";
import { signPageCursor, verifyPageCursor } from "../listing/page-cursor.js";
import { PageTokenSigner } from "../secrets/page-token-signer.js";
import type { AuditCursor } from "../storage/storage-port.js";
import type { Actor } from "../tenancy/actor.js";
import { defineUseCase } from "../use-case/define-use-case.js";
import { now, read, transact } from "../use-case/use-case-kit.js";
import type { RawQuery } from "../wire/provider-list-query.js";
import { invalid, unstorableText } from "../validation/decode-write.js";
import { DateTimeString } from "../validation/text.js";
import { AuditListParameters, type AuditEventPage, toAuditEventRecord } from "./audit-schema.js";

const KNOWN: ReadonlyArray<string> = Object.keys(AuditListParameters.fields);
const isDateTime = Schema.is(DateTimeString);
const OPERATION_NAMES: ReadonlySet<string> = new Set(OPERATIONS);

/** A typed `GET /audit-events` query: page size (clamped to MAX_PAGE_SIZE), page token and filters. */
export interface AuditListQuery {
  readonly limit?: number | undefined;
  readonly token?: string | undefined;
  readonly targetID?: string | undefined;
  readonly operation?: string | undefined;
  readonly since?: string | undefined;
}

interface Filters {
  readonly targetId?: string | undefined;
  readonly operation?: string | undefined;
  readonly since?: number | undefined;
}

/** The problems of a typed query (docs/api-rules.md §11 rules for limit and token), each under its name. */
const queryProblems = (query: AuditListQuery): Array<FieldProblem> => {
  const problems: Array<FieldProblem> = [];
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (!KNOWN.includes(name)) problems.push({ path: name, message: "unknown query parameter" });
    else if (typeof value === "string") {
      const message = unstorableText(value);
      if (message !== undefined) problems.push({ path: name, message });
    }
  }
  if (query.limit !== undefined && (!Number.isSafeInteger(query.limit) || query.limit < 1))
    problems.push({ path: "limit", message: "must be at least 1" });
  if (query.targetID !== undefined && query.targetID !== "" && !isId(query.targetID))
    problems.push({ path: "targetID", message: "must be an id of 11 letters and digits" });
  if (query.operation !== undefined && query.operation !== "" && !OPERATION_NAMES.has(query.operation))
    problems.push({ path: "operation", message: "must be the operation id of a management operation" });
  if (query.since !== undefined && query.since !== "" && !isDateTime(query.since))
    problems.push({ path: "since", message: "must be an RFC 3339 date-time such as 2030-01-01T00:00:00Z" });
  return problems;
};

/**
 * Decodes the query string of `GET /audit-events`: every bad, repeated or unknown parameter is reported at
 * once, located by its name. Whether a page token is valid still needs the signer (the use case checks it).
 */
export const decodeAuditListQuery = (query: RawQuery): Effect.Effect<AuditListQuery, InvalidArgument> => {
  const problems: Array<FieldProblem> = [];
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (!KNOWN.includes(name)) problems.push({ path: name, message: "unknown query parameter" });
    else if (typeof value !== "string") problems.push({ path: name, message: "must be given once" });
    else if (value !== "") values[name] = value;
  }
  let limit: number | undefined;
  const rawLimit = values.limit;
  if (rawLimit !== undefined) {
    if (!/^-?\d{1,15}$/.test(rawLimit)) problems.push({ path: "limit", message: "must be a whole number" });
    else limit = Number(rawLimit);
  }
  const typed: AuditListQuery = {
    limit,
    token: values.token,
    targetID: values.targetID,
    operation: values.operation,
    since: values.since,
  };
  problems.push(...queryProblems(typed));
  return problems.length > 0 ? Effect.fail(invalid(problems)) : Effect.succeed(typed);
};

/** One page of the audit events of the actor's tenant, newest first (`GET /audit-events`). */
export const listAuditEvents = defineUseCase("listAuditEvents", (actor: Actor, query: AuditListQuery) =>
  Effect.gen(function* () {
    const problems = queryProblems(query);
    const limit = Math.min(query.limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    const filters: Filters = {
      targetId: query.targetID || undefined,
      operation: query.operation || undefined,
      since: query.since ? Date.parse(query.since) : undefined,
    };
    const token = query.token || undefined;
    const signer = yield* PageTokenSigner;
    // The "audit" prefix keeps a provider listing's token from being replayed here.
    const filterKey = JSON.stringify(["audit", filters]);
    const after = token === undefined ? undefined : verifyPageCursor(signer, token, actor.tenant, filterKey, "a");
    if (token !== undefined && after === undefined)
      problems.push({ path: "token", message: "is not a nextToken of this listing" });
    if (problems.length > 0) return yield* invalid(problems);
    const page = yield* read((tx) =>
      tx.searchAuditEvents({
        tenant: actor.tenant,
        targetId: filters.targetId,
        operation: filters.operation,
        since: filters.since === undefined ? undefined : new Date(filters.since),
        after,
        limit: limit + 1,
      }),
    );
    const items = page.items.slice(0, limit);
    const last = items.at(-1);
    const nextToken =
      page.items.length > limit && last !== undefined
        ? signPageCursor(signer, actor.tenant, filterKey, "a", { at: last.at, id: last.id })
        : "";
    return {
      auditEvents: items.map(toAuditEventRecord),
      matchCount: page.matchCount,
      nextToken,
    } satisfies AuditEventPage;
  }),
);

/** How many events one prune transaction deletes at most, so pruning never holds long locks. */
export const AUDIT_PRUNE_BATCH = 1_000;

/**
 * Deletes the audit events older than `retentionDays` (every tenant's), in batches of `batch` events, one
 * transaction each; answers how many went.
 */
export const pruneAuditEvents = (retentionDays: number, batch: number = AUDIT_PRUNE_BATCH) =>
  Effect.gen(function* () {
    const cutoff = new Date((yield* now).getTime() - retentionDays * 86_400_000);
    let total = 0;
    for (;;) {
      const deleted = yield* transact((tx) => tx.pruneAuditEvents(cutoff, batch));
      total += deleted;
      if (deleted < batch) return total;
    }
  });
