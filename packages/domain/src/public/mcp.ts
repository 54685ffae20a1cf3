// @mcpsm/domain/mcp: the product rules of serving a composed server over MCP (what a server serves, how a
// tool call becomes an upstream request, header templates, prompt rendering) and server-token checks.
// The MCP transport itself lives in @mcpsm/mcp-runtime.

export * from "../mcp/index.js";
export {
  type ApprovalRequest,
  approvalForCall,
  approvalForPage,
  type CallApproval,
  decideOnPage,
} from "../approval/approval-use-cases.js";
export { APPROVAL_TTL_MS, type ApprovalRow } from "../approval/approval-schema.js";
export { servedToolName, toolSettingsOf } from "../server/tool-settings-rows.js";
export { secretPrefixOf } from "../provider/secret-prefix.js";
export { SERVER_TOKEN_PREFIX } from "../server-token/server-token-schema.js";
export {
  beginUpstreamConsent,
  CONSENT_TTL_SECONDS,
  type ConnectionGrant,
  type ConnectionTokens,
  connectionOwner,
  coversScopes,
  dropUpstreamConnection,
  findUpstreamConnection,
  type PendingConsent,
  saveUpstreamConnection,
  takeUpstreamConsent,
  type UpstreamConnection,
  upstreamConsentProvider,
} from "../upstream-connection/connection-use-cases.js";
export {
  beginCallerValueForm,
  CALLER_VALUE_FORM_TTL_SECONDS,
  type CallerValueForm,
  findCallerValueForm,
  isCallerValueFormId,
  submitCallerValue,
} from "../caller-value/caller-value-form.js";
export { CallerValueNeeded, resolveVariables } from "../caller-value/caller-value-resolution.js";
export {
  authenticateServerToken,
  hashServerToken,
  serverTokenExpired,
} from "../server-token/server-token-use-cases.js";
export {
  compileSafeRegExp,
  MAX_REGEXP_PROGRAM,
  REGEXP_WORK_BUDGET,
  RegExpBudgetExceeded,
  type SafeRegExp,
  SafeRegExpRefused,
  safeRegExpEngine,
  safeRegExpProblem,
  withRegExpBudget,
} from "../regexp/safe-regexp.js";
export {
  createUpstreamTask,
  sweepUpstreamTasks,
  updateUpstreamTask,
  upstreamTaskById,
} from "../upstream-task/upstream-task-use-cases.js";
export type { UpstreamTaskRow, UpstreamTaskStatus } from "../upstream-task/upstream-task-row.js";
