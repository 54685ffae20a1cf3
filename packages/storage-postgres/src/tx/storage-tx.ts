import type { StorageTx } from "@mcpsm/domain/storage";
import type { Tables } from "../table/tables.js";
import { approvalOperations } from "./approvals.js";
import { upstreamTaskOperations } from "./upstream-tasks.js";
import { auditEventOperations } from "./audit-events.js";
import { gitSyncOperations } from "./git-sync.js";
import { oauthServerRecordOperations } from "./oauth-server-records.js";
import { promptOperations } from "./prompts.js";
import { providerOperations } from "./providers.js";
import { providerToolLookupOperations } from "./provider-tool-lookups.js";
import { resourceOperations } from "./resources.js";
import { type Runner, txContext } from "./runner.js";
import { secretOperations } from "./secrets.js";
import { serverRevisionOperations } from "./server-revisions.js";
import { serverTokenOperations } from "./server-tokens.js";
import { serverOperations } from "./servers.js";
import { toolOperations } from "./tools.js";
import { upstreamConnectionOperations } from "./upstream-connections.js";
import { variableOperations } from "./variables.js";
import { callerValueOperations } from "./caller-values.js";

// Every part of the StorageTx: one per table or concern (a new one is one line here).
const PARTS = [
  providerOperations,
  toolOperations,
  promptOperations,
  resourceOperations,
  variableOperations,
  serverOperations,
  serverTokenOperations,
  secretOperations,
  auditEventOperations,
  upstreamConnectionOperations,
  oauthServerRecordOperations,
  gitSyncOperations,
  providerToolLookupOperations,
  serverRevisionOperations,

  callerValueOperations,

  approvalOperations,
  upstreamTaskOperations,
] as const;

// Compile-time proof that the parts together are a whole StorageTx (the assembly below casts).
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
type Assembled = UnionToIntersection<ReturnType<ReturnType<(typeof PARTS)[number]>>>;
export const assembledIsComplete = (tx: Assembled): StorageTx => tx;

/**
 * Prepares the statements of every operation from the tables (once per storage) and answers the maker of
 * the StorageTx whose operations run them with a runner (once per transaction or read).
 */
export const prepareStorageTx = (tables: Tables): ((runner: Runner) => StorageTx) => {
  const parts = PARTS.map((part) => part(tables));
  return (runner) => {
    const ctx = txContext(tables, runner);
    return Object.assign({}, ...parts.map((part) => part(ctx))) as StorageTx;
  };
};
