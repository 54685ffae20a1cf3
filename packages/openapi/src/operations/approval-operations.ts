import * as D from "@mcpsm/domain/schemas";
import { USE_CASES as U } from "@mcpsm/domain/use-cases";
import { Effect } from "effect";
import { defineOperation, envelope, type ManagementOperation, list } from "./define-operation.js";

// Calls waiting for a person's approval (docs/api-rules.md §20): the tenant's pending ones, and an
// out-of-band approver's decision. The page a caller is sent to is the service's own (GET /approvals/{id}).

export const APPROVAL_OPERATIONS: ReadonlyArray<ManagementOperation> = [
  defineOperation({
    method: "GET",
    path: "/approvals",
    useCase: U.listApprovals,
    summary: "List the tool calls waiting for approval",
    tag: "Servers",
    status: 200,
    response: list("approvals", D.ApprovalRecord),
    input: () => ({}),
    answer: (approvals) => ({ body: { approvals } }),
  }),
  defineOperation({
    method: "POST",
    path: "/approvals/{approvalID}/decision",
    useCase: U.decideApproval,
    summary: "Approve or deny a tool call waiting for approval",
    tag: "Servers",
    status: 200,
    request: D.ApprovalDecisionBody,
    response: envelope("approval", D.ApprovalRecord),
    // The body is checked by the use case (400 naming `decision`).
    decodeBody: (body) => Effect.succeed(body as D.ApprovalDecisionBody),
    input: ({ params, body }) => ({ approvalId: params.approvalID, decision: body }),
    answer: (approval) => ({ body: { approval } }),
  }),
];
