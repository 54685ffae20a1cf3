import type { ProviderRow } from "../storage/rows.js";

/**
 * Who sees a provider (docs/api-rules.md §4): its own tenant, and every tenant when it is PUBLIC. The one
 * statement of the rule: the use cases check it (`canSee`), the memory store filters listings by it, and the
 * PostgreSQL store's listing SQL is checked against it by the storage contract's provider-search cases.
 */
export const visibleTo = (viewerTenant: string, row: Pick<ProviderRow, "tenant" | "visibilityType">): boolean =>
  row.tenant === viewerTenant || row.visibilityType === "PUBLIC";
