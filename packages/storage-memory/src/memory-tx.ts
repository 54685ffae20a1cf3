import type { StorageTx } from "@mcpsm/domain/storage";
import { memoryAuditEvents } from "./audit-events.js";
import { memoryApprovals } from "./approvals.js";
import { memoryUpstreamTasks } from "./upstream-tasks.js";
import { memoryGitSync } from "./git-sync.js";
import { memoryOAuthServerRecords } from "./oauth-server-records.js";
import { memoryProviderChildren } from "./provider-children.js";
import { memoryProviders } from "./providers.js";
import { memorySecrets } from "./secrets.js";
import { memoryReferences } from "./server-references.js";
import { memoryServerRevisions } from "./server-revisions.js";
import { memoryServerTokens } from "./server-tokens.js";
import { memoryServers } from "./servers.js";
import { memoryUpstreamConnections } from "./upstream-connections.js";
import type { Tables } from "./tables.js";
import { memoryVariables } from "./variables.js";
import { memoryCallerValues } from "./caller-values.js";

// Rows are cloned on the way in and on the way out (row-copies.ts), so neither the caller's objects nor the
// rows handed back share anything with the store. Each capability of the port is a file of its own.

/** The StorageTx of one transaction, reading and writing `tables` (the transaction's own copy). */
export const makeMemoryTx = (tables: Tables): StorageTx => {
  const references = memoryReferences(tables);
  return {
    ...memoryProviders(tables, references),
    ...memoryProviderChildren(tables, references),
    ...memoryVariables(tables),
    ...memoryCallerValues(tables),
    ...memoryServers(tables, references),
    ...memoryServerTokens(tables, references),
    ...memorySecrets(tables),
    ...memoryUpstreamConnections(tables),
    ...memoryAuditEvents(tables),
    ...memoryOAuthServerRecords(tables),
    ...memoryServerRevisions(tables),
    ...memoryGitSync(tables, (reference) => references.referencingServers(reference)),
    ...memoryApprovals(tables),
    ...memoryUpstreamTasks(tables),
  };
};
