import type { ManagementOperation } from "./define-operation.js";
import { APPROVAL_OPERATIONS } from "./approval-operations.js";
import { AUDIT_OPERATIONS } from "./audit-operations.js";
import { CALL_LOG_OPERATIONS } from "./call-log-operations.js";
import { GIT_OPERATIONS } from "./git-operations.js";
import { PROVIDER_CHILD_OPERATIONS } from "./provider-child-operations.js";
import { PROVIDER_CONNECTION_OPERATIONS, PROVIDER_OPERATIONS } from "./provider-operations.js";
import { REVISION_OPERATIONS } from "./revision-operations.js";
import { SERVER_MEMBER_OPERATIONS, SERVER_OPERATIONS, SERVER_TOKEN_OPERATIONS } from "./server-operations.js";
import { SERVER_TRANSFER_OPERATIONS } from "./server-transfer-operations.js";
import { VARIABLE_OPERATIONS } from "./variable-operations.js";

/**
 * Every management operation of the spec and of docs/api-rules.md §§8–10, in the order of the document: the
 * one list the OpenAPI document, the service's router and its scope checks are derived from.
 */
export const MANAGEMENT_ROUTES: ReadonlyArray<ManagementOperation> = [
  ...SERVER_OPERATIONS,
  ...SERVER_MEMBER_OPERATIONS,
  ...SERVER_TOKEN_OPERATIONS,
  ...PROVIDER_OPERATIONS,
  ...PROVIDER_CHILD_OPERATIONS,
  ...VARIABLE_OPERATIONS,
  ...AUDIT_OPERATIONS,
  ...PROVIDER_CONNECTION_OPERATIONS,
  ...SERVER_TRANSFER_OPERATIONS,
  ...GIT_OPERATIONS,
  ...REVISION_OPERATIONS,

  ...CALL_LOG_OPERATIONS,

  ...APPROVAL_OPERATIONS,
];
