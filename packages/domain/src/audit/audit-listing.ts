import { Effect, Schema } from "effect";
import type { FieldProblem } from "../errors/domain-errors.js";
import { isId } from "../ids/id.js";
import type { ProviderListQuery } from "../provider/provider-listing.js";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "../provider/provider-schema.js";
import { OPERATIONS } from "../scopes/scope-policy.js";
import { PageTokenSigner } from "../secrets/page-token-signer.js";
import type { AuditCursor } from "../storage/storage-port.js";
import type { Actor } from "../tenancy/actor.js";
import { now, read, transact } from "../use-case/use-case-kit.js";
import { invalid, unstorableText } from "../validation/decode-write.js";
import { DateTimeString } from "../validation/text.js";
import { AuditListParameters, type AuditEventPage, toAuditEventRecord } from "./audit-schema.js";

const KNOWN: ReadonlyArray<string> = Object.keys(AuditListParameters.fields);
const isDateTime = Schema.is(DateTimeString);
const OPERATION_NAMES: ReadonlySet<string> = new Set(OPERATIONS);

interface Filters {
  readonly targetId?: string | undefined;
  readonly operation?: string | undefined;
  readonly since?: number | undefined;
}

/** Reads and checks the query, reporting every bad parameter (API-CONTRACT.md §11 rules for limit and token). */
const parseQuery = (query: ProviderListQuery) => {
  const problems: Array<FieldProblem> = [];
  const single = (name: string): string | undefined => {
    const value = query[name];
    if (value === undefined) return undefined;
    if (typeof value !== "string") {
      problems.push({ path: name, message: "must be given once" });
      return undefined;
    }
    const message = unstorableText(value);
    if (message !== undefined) {
      problems.push({ path: name, message });
      return undefined;
    }
    return value === "" ? undefined : value;
  };
  for (const name of Object.keys(query))
    if (!KNOWN.includes(name)) problems.push({ path: name, message: "unknown query parameter" });
  let limit = DEFAULT_PAGE_SIZE;
  const rawLimit = single("limit");
  if (rawLimit !== undefined) {
    if (!/^-?\d{1,15}$/.test(rawLimit)) problems.push({ path: "limit", message: "must be a whole number" });
    else if (Number(rawLimit) < 1) problems.push({ path: "limit", message: "must be at least 1" });
    else limit = Math.min(Number(rawLimit), MAX_PAGE_SIZE);
  }
  const targetId = single("targetID");
  if (targetId !== undefined && !isId(targetId))
    problems.push({ path: "targetID", message: "must be an id of 11 letters and digits" });
  const operation = single("operation");
  if (operation !== undefined && !OPERATION_NAMES.has(operation))
    problems.push({ path: "operation", message: "must be the operation id of a management operation" });
  const rawSince = single("since");
  if (rawSince !== undefined && !isDateTime(rawSince))
    problems.push({ path: "since", message: "must be an RFC 3339 date-time such as 2030-01-01T00:00:00Z" });
  const filters: Filters = {
    targetId,
    operation,
    since: rawSince === undefined ? undefined : Date.parse(rawSince),
  };
  return { problems, limit, filters, token: single("token") };
};

/** The signed content of a nextToken: whose it is, for which filters, and where the page ends. */
interface TokenPayload {
  readonly t: string;
  readonly f: string;
  readonly a: number;
  readonly i: string;
}

const decodeCursor = (signer: typeof PageTokenSigner.Service, token: string, tenant: string, filterKey: string) => {
  const payload = signer.verify(token);
  if (payload === undefined) return undefined;
  try {
    const parsed = JSON.parse(payload) as TokenPayload;
    if (parsed.t !== tenant || parsed.f !== filterKey || typeof parsed.a !== "number" || typeof parsed.i !== "string")
      return undefined;
    return { at: new Date(parsed.a), id: parsed.i } satisfies AuditCursor;
  } catch {
    return undefined;
  }
};

/** One page of the audit events of the actor's tenant, newest first (`GET /audit-events`). */
export const listAuditEvents = (actor: Actor, query: ProviderListQuery) =>
  Effect.gen(function* () {
    const { problems, limit, filters, token } = parseQuery(query);
    const signer = yield* PageTokenSigner;
    // The "audit" prefix keeps a provider listing's token from being replayed here.
    const filterKey = JSON.stringify(["audit", filters]);
    const after = token === undefined ? undefined : decodeCursor(signer, token, actor.tenant, filterKey);
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
        ? signer.sign(
            JSON.stringify({ t: actor.tenant, f: filterKey, a: last.at.getTime(), i: last.id } satisfies TokenPayload),
          )
        : "";
    return {
      auditEvents: items.map(toAuditEventRecord),
      matchCount: page.matchCount,
      nextToken,
    } satisfies AuditEventPage;
  });

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
