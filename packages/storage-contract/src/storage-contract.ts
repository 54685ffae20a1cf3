import type { Storage } from "@mcpsm/domain/storage";
import { afterAll, beforeEach, describe } from "vitest";
import { approvalCases } from "./cases/approvals.js";
import { upstreamTaskCases } from "./cases/upstream-tasks.js";
import { auditEventCases } from "./cases/audit-events.js";
import { callerValueCases } from "./cases/caller-values.js";
import { cascadeCases } from "./cases/cascades.js";
import { gitSyncCases } from "./cases/git-sync.js";
import { lookupCases } from "./cases/lookups.js";
import { oauthServerRecordCases } from "./cases/oauth-server-records.js";
import { orderingCases } from "./cases/ordering.js";
import { providerSearchCases } from "./cases/provider-search.js";
import { referenceCases } from "./cases/references.js";
import { roundTripCases } from "./cases/round-trips.js";
import { secretCases } from "./cases/secrets.js";
import { serverGraphCases } from "./cases/server-graphs.js";
import { serverRevisionCases } from "./cases/server-revisions.js";

import { serverToolSettingsCases } from "./cases/server-tool-settings.js";
import { transactionCases } from "./cases/transactions.js";
import { uniquenessCases } from "./cases/uniqueness.js";
import { upstreamConnectionCases } from "./cases/upstream-connections.js";
import { toolCallCases } from "./cases/tool-calls.js";
import { toolSearchCases } from "./cases/tool-search.js";
import { versionCases } from "./cases/versions.js";
import { makeHarness } from "./harness.js";

/** A storage under test, as an adapter's test file builds it. */
export interface ContractSubject {
  readonly storage: typeof Storage.Service;
  /** Empties the store. When given, one subject serves every test; otherwise each test gets a new one. */
  readonly reset?: () => Promise<void>;
  /** Releases the store (connections, files). */
  readonly dispose: () => Promise<void>;
}

/**
 * Registers the storage port's contract as vitest suites under `storage contract: <name>`. Every test
 * starts from an empty store: `setup` builds one (once if it can `reset`, else before each test).
 *
 * The contract, beyond what the port's types say: names are unique per tenant (providers, servers,
 * variables) or per provider (tools, prompts, resources), case-sensitively; writes that name a missing
 * record and deletes of records a server uses fail with ReferenceViolation (kind = the record written or
 * deleted); deleteProvider cascades to its tools, prompts and resources, deleteServer to its tokens and
 * links; updates never change id, owner (tenant, provider) or createdAt, and updateVariable never the
 * name; updating or deleting a missing record changes nothing; lists are in createdAt order, then id
 * compared code unit by code unit (PostgreSQL: COLLATE "C"); search substrings are literal (no LIKE
 * wildcards); a provider is referenced by a server that links it or any of its tools, resources or
 * prompts; rows handed in or out are never shared with the store; transactions are atomic; a server's
 * revisions are one per version, listed newest first, and go with the server.
 */
export const storageContract = (name: string, setup: () => Promise<ContractSubject>): void => {
  describe(`storage contract: ${name}`, () => {
    let subject: ContractSubject | undefined;
    beforeEach(async () => {
      if (subject?.reset !== undefined) await subject.reset();
      else {
        await subject?.dispose();
        subject = await setup();
      }
    });
    afterAll(async () => {
      await subject?.dispose();
      subject = undefined;
    });
    const h = makeHarness(() => {
      if (subject === undefined) throw new Error("the storage contract ran a test before its setup");
      return subject.storage;
    });

    roundTripCases(h);
    uniquenessCases(h);
    referenceCases(h);
    cascadeCases(h);
    versionCases(h);
    orderingCases(h);
    providerSearchCases(h);
    toolSearchCases(h);
    serverGraphCases(h);
    lookupCases(h);
    transactionCases(h);
    secretCases(h);
    auditEventCases(h);
    upstreamConnectionCases(h);
    oauthServerRecordCases(h);
    gitSyncCases(h);
    serverRevisionCases(h);

    toolCallCases(h);

    callerValueCases(h);

    serverToolSettingsCases(h);
    approvalCases(h);
    upstreamTaskCases(h);
  });
};
