import * as D from "@mcpsm/domain/schemas";
import { USE_CASES as U } from "@mcpsm/domain/use-cases";
import { defineOperation, type ManagementOperation } from "./define-operation.js";

/**
 * The tool-call log and usage (docs/api-rules.md §24). The live tail, `GET /servers/{id}/calls/stream`
 * (Server-Sent Events), is the service's own route: no JSON answer to declare (docs/decisions.md, issue 31).
 */
export const CALL_LOG_OPERATIONS: ReadonlyArray<ManagementOperation> = [
  defineOperation({
    method: "GET",
    path: "/servers/{id}/calls",
    useCase: U.listServerCalls,
    summary: "List a server's tool calls, newest first, one page at a time",
    tag: "Usage",
    status: 200,
    query: D.CallListParameters,
    response: D.ToolCallPage,
    decodeQuery: D.decodeCallListQuery,
    input: ({ params, query }) => ({ serverId: params.id, query }),
    answer: (page) => ({ body: page }),
  }),
  defineOperation({
    method: "GET",
    path: "/servers/{id}/usage",
    useCase: U.getServerUsage,
    summary: "A server's usage over time: calls, error rate, p50/p95 latency, result tokens",
    tag: "Usage",
    status: 200,
    query: D.UsageParameters,
    response: D.UsageReport,
    decodeQuery: D.decodeUsageQuery,
    input: ({ params, query }) => ({ serverId: params.id, query }),
    answer: (report) => ({ body: report }),
  }),
  defineOperation({
    method: "GET",
    path: "/usage",
    useCase: U.getTenantUsage,
    summary: "The tenant's usage over time and per server: calls, error rate, p50/p95 latency, result tokens",
    tag: "Usage",
    status: 200,
    query: D.UsageParameters,
    response: D.UsageReport,
    decodeQuery: D.decodeUsageQuery,
    input: ({ query }) => query,
    answer: (report) => ({ body: report }),
  }),
];
