import type { ExpiredApprovals } from "@mcpsm/domain/use-cases";
import type { Middleware } from "koa";
import { Counter, Histogram, type Registry } from "prom-client";

// docs/api-rules.md §20: approvals asked, decided (by outcome and where), expired, and the time a person took
// to decide. Labels are the service's own words, never a tool, server or tenant name. Each instance counts
// what it did: the asks of the calls it served, the decisions made through it, the expired approvals its sweep
// deleted; a sum over the instances is the service's total.

/** Seconds from the ask to the decision: a person answers in seconds to minutes (at most the 10-minute life). */
const DECISION_BUCKETS = [1, 5, 10, 30, 60, 120, 180, 300, 450, 600];

/** What a decision the service made reports: its outcome and the approval's two instants. */
export interface DecidedApproval {
  readonly status: string;
  readonly createdAt: string;
  readonly decidedAt: string;
}

/** Where a decision was made: the approval page, or `POST /approvals/{id}/decision`. */
export type DecisionChannel = "page" | "api";

const DECISION_ROUTE = "/approvals/:approvalID/decision";

/** The approval metrics of one service, registered in `registry`. */
export const createApprovalMetrics = (registry: Registry) => {
  const requested = new Counter({
    name: "mcpsm_approvals_requested_total",
    help: "Tool calls that asked a person's approval (a new approval; a retry of one still waiting is not counted).",
    registers: [registry],
  });
  const decided = new Counter({
    name: "mcpsm_approvals_decided_total",
    help: "Approvals decided, by outcome (approved, denied) and channel (page, api).",
    labelNames: ["outcome", "channel"] as const,
    registers: [registry],
  });
  const decisionSeconds = new Histogram({
    name: "mcpsm_approval_decision_seconds",
    help: "Time from a call asking approval to a person's decision, by outcome.",
    labelNames: ["outcome"] as const,
    buckets: DECISION_BUCKETS,
    registers: [registry],
  });
  const expired = new Counter({
    name: "mcpsm_approvals_expired_total",
    help: "Approvals that expired before serving, by state: undecided (never decided), unused (approved, never retried).",
    labelNames: ["state"] as const,
    registers: [registry],
  });

  /** Counts one decision. */
  const onDecided = (approval: DecidedApproval, channel: DecisionChannel) => {
    const outcome = approval.status === "APPROVED" ? "approved" : "denied";
    decided.inc({ outcome, channel });
    const took = (Date.parse(approval.decidedAt) - Date.parse(approval.createdAt)) / 1000;
    if (Number.isFinite(took)) decisionSeconds.observe({ outcome }, Math.max(0, took));
  };

  /**
   * Counts the decisions answered by the management API (the page reports its own through `onDecided`). The
   * decision route is a POST: any other request passes through without an async frame of its own.
   */
  const apiDecisions: Middleware = (ctx, next) => {
    if (ctx.method !== "POST") return next();
    return next().then(() => {
      if (ctx._matchedRoute !== DECISION_ROUTE || ctx.status !== 200) return;
      const approval = (ctx.body as { approval?: DecidedApproval } | undefined)?.approval;
      if (approval !== undefined) onDecided(approval, "api");
    });
  };

  return {
    onRequested: () => requested.inc(),
    onDecided,
    apiDecisions,
    onExpired: (swept: ExpiredApprovals) => {
      if (swept.undecided > 0) expired.inc({ state: "undecided" }, swept.undecided);
      if (swept.unused > 0) expired.inc({ state: "unused" }, swept.unused);
    },
  };
};
export type ApprovalMetrics = ReturnType<typeof createApprovalMetrics>;
