import * as D from "@mcpsm/domain/schemas";
import { USE_CASES as U } from "@mcpsm/domain/use-cases";
import { defineOperation, type ManagementOperation } from "./define-operation.js";

/** The audit trail (docs/api-rules.md §18). */
export const AUDIT_OPERATIONS: ReadonlyArray<ManagementOperation> = [
  defineOperation({
    method: "GET",
    path: "/audit-events",
    useCase: U.listAuditEvents,
    summary: "List the tenant's audit events, newest first, one page at a time",
    tag: "Audit",
    status: 200,
    query: D.AuditListParameters,
    response: D.AuditEventPage,
    decodeQuery: D.decodeAuditListQuery,
    input: ({ query }) => query,
    answer: (page) => ({ body: page }),
  }),
];
