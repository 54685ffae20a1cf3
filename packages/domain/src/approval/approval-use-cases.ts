import { Effect, Schema } from "effect";
import { FailedPrecondition, NotFound } from "../errors/domain-errors.js";
import { newId } from "../ids/id.js";
import type { McpCaller } from "../mcp/server-access.js";
import type { Actor } from "../tenancy/actor.js";
import { connectionOwner } from "../upstream-connection/connection-use-cases.js";
import { defineUseCase, type NoInput } from "../use-case/define-use-case.js";
import { now, read, transact } from "../use-case/use-case-kit.js";
import { validateInput } from "../validation/validate-input.js";
import { argumentsHash, shownArguments } from "./approval-arguments.js";
import {
  APPROVAL_TTL_MS,
  ApprovalDecisionBody,
  ApprovalId,
  type ApprovalRow,
  toApprovalRecord,
} from "./approval-schema.js";

const isApprovalId = Schema.is(ApprovalId);

// docs/api-rules.md §20: the MCP endpoint asks (`approvalForCall`), a person decides on the page or through
// the API (`decideApproval`), the caller's retry with the same arguments uses the approval once.

/** What a call that needs approval may do now. */
export type CallApproval =
  | { readonly kind: "approved" }
  | { readonly kind: "denied" }
  /** `created`: asked by this call (not one asked earlier and still waiting). */
  | { readonly kind: "pending"; readonly id: string; readonly created: boolean };

/** The call a tool run asks approval for. */
export interface ApprovalRequest {
  readonly tenant: string;
  readonly serverId: string;
  readonly toolId: string;
  readonly toolName: string;
  readonly caller: McpCaller;
  /** The arguments the call will run with (the server's pinned values merged in). */
  readonly arguments: unknown;
}

/**
 * The approval state of one call: an approval of this caller for these exact arguments that was given (it is
 * used up now) or refused (the caller is told once), else the one still waiting, else a new one.
 */
export const approvalForCall = (request: ApprovalRequest) =>
  transact((tx) =>
    Effect.gen(function* () {
      const at = yield* now;
      const { principal } = connectionOwner(request.caller);
      const rows = yield* tx.listCallApprovals(request.serverId, principal, request.toolId);
      for (const row of rows) {
        if (row.expiresAt <= at || row.status === "USED") continue;
        if (row.argumentsHash !== argumentsHash(row.id, request.arguments)) continue;
        if (row.status === "PENDING") return { kind: "pending", id: row.id, created: false } satisfies CallApproval;
        // Single use: of two retries racing on two instances, one wins the compare-and-set.
        if (yield* tx.updateApproval({ ...row, status: "USED" }, row.status))
          return { kind: row.status === "APPROVED" ? "approved" : "denied" } satisfies CallApproval;
      }
      const id = newId();
      const row: ApprovalRow = {
        id,
        tenant: request.tenant,
        serverId: request.serverId,
        toolId: request.toolId,
        toolName: request.toolName,
        principal,
        argumentsHash: argumentsHash(id, request.arguments),
        argumentsShown: shownArguments(request.arguments),
        status: "PENDING",
        createdAt: at,
        expiresAt: new Date(at.getTime() + APPROVAL_TTL_MS),
        decidedAt: null,
        decidedBy: "",
      };
      yield* Effect.orDie(tx.insertApproval(row));
      return { kind: "pending", id, created: true } satisfies CallApproval;
    }),
  );

/** A decision on a pending approval by `decidedBy`, for `tenant` (undefined: the page, whose id is the capability). */
const decide = (id: string, decision: ApprovalDecisionBody["decision"], decidedBy: string, tenant?: string) =>
  transact((tx) =>
    Effect.gen(function* () {
      const row = yield* tx.findApproval(id);
      if (row === undefined || (tenant !== undefined && row.tenant !== tenant))
        return yield* new NotFound({ kind: "approval", id });
      const at = yield* now;
      if (row.expiresAt <= at)
        return yield* new FailedPrecondition({ detail: `approval '${id}' expired`, references: [] });
      if (row.status !== "PENDING")
        return yield* new FailedPrecondition({ detail: `approval '${id}' was already decided`, references: [] });
      const decided: ApprovalRow = {
        ...row,
        status: decision === "APPROVE" ? "APPROVED" : "DENIED",
        decidedAt: at,
        decidedBy,
      };
      if (!(yield* tx.updateApproval(decided, "PENDING")))
        return yield* new FailedPrecondition({ detail: `approval '${id}' was already decided`, references: [] });
      return toApprovalRecord(decided);
    }),
  );

/** The approval a page shows, or undefined when its id is unknown or malformed. */
export const approvalForPage = (id: string) =>
  isApprovalId(id) ? read((tx) => tx.findApproval(id)) : Effect.succeed(undefined);

/** A decision made on the approval page (the id in its URL is the capability). */
export const decideOnPage = (id: string, decision: ApprovalDecisionBody["decision"]) =>
  isApprovalId(id) ? decide(id, decision, "approval page") : Effect.fail(new NotFound({ kind: "approval", id }));

/** Input of `decideApproval`. */
export interface DecideApprovalInput {
  readonly approvalId: string;
  readonly decision: ApprovalDecisionBody;
}

/** An out-of-band approver's decision on a pending approval of the actor's tenant. */
export const decideApproval = defineUseCase(
  "decideApproval",
  (actor: Actor, { approvalId, decision }: DecideApprovalInput) =>
    Effect.gen(function* () {
      if (!isApprovalId(approvalId)) return yield* new NotFound({ kind: "approval", id: approvalId });
      const body = yield* validateInput("", ApprovalDecisionBody, decision);
      return yield* decide(approvalId, body.decision, actor.sub ?? actor.tenant, actor.tenant);
    }),
);

/** The approvals of the actor's tenant still waiting for a decision, oldest first. */
export const listApprovals = defineUseCase("listApprovals", (actor: Actor, _input: NoInput) =>
  Effect.gen(function* () {
    const at = yield* now;
    return yield* read((tx) =>
      Effect.map(tx.listApprovals(actor.tenant, "PENDING", at), (rows) => rows.map(toApprovalRecord)),
    );
  }),
);

/** What one sweep of expired approvals deleted: never decided, and approved but never used. */
export interface ExpiredApprovals {
  readonly undecided: number;
  readonly unused: number;
  readonly deleted: number;
}

/** How many approvals one sweep transaction deletes at most. */
export const APPROVAL_SWEEP_BATCH = 1_000;

/**
 * Deletes the approvals (every tenant's) whose 10 minutes are over, in batches; answers what went. An expired
 * approval can serve nothing (a decision or a retry treats it as absent), so none is kept; each is counted
 * once, by the instance whose sweep deleted it. A sweep with nothing to delete only reads: a committed
 * transaction, even an empty one, moves every instance's read caches on (the store's change stamp).
 */
export const sweepExpiredApprovals = (batch: number = APPROVAL_SWEEP_BATCH) =>
  Effect.gen(function* () {
    const at = yield* now;
    let swept: ExpiredApprovals = { undecided: 0, unused: 0, deleted: 0 };
    if (!(yield* read((tx) => tx.hasExpiredApprovals(at)))) return swept;
    for (;;) {
      const statuses = yield* transact((tx) => tx.deleteExpiredApprovals(at, batch));
      swept = {
        undecided: swept.undecided + statuses.filter((s) => s === "PENDING").length,
        unused: swept.unused + statuses.filter((s) => s === "APPROVED").length,
        deleted: swept.deleted + statuses.length,
      };
      if (statuses.length < batch) return swept;
    }
  });

/** This file's use cases under their operation names (a row of the domain's `USE_CASES`). */
export const APPROVAL_USE_CASES = { listApprovals, decideApproval } as const;
