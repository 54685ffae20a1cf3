import type { AuditEventRow } from "../audit/audit-schema.js";
import type { ApiType, VisibilityType } from "../provider/provider-schema.js";
import type { PageCursor } from "../listing/page-cursor.js";
import type { ProviderWithTools, ToolRow } from "./rows.js";
import type { StoredPage } from "./stored-page.js";

// The searches, pages and cursors the storage port's listings take and answer, and the stored secrets the
// operator's key rotation walks.

/** A position in the provider order (creation time, then id): a page starts after it. */
export interface ProviderCursor {
  readonly createdAt: Date;
  readonly id: string;
}

/** A filtered, paged search of the providers a tenant can see (its own and every PUBLIC one). */
export interface ProviderSearch {
  readonly viewerTenant: string;
  /** Case-insensitive substring of the name. */
  readonly nameContains?: string | undefined;
  /** Case-insensitive substring of the base URL. */
  readonly baseURLContains?: string | undefined;
  readonly apiType?: ApiType | undefined;
  readonly visibility?: VisibilityType | undefined;
  readonly after?: ProviderCursor | undefined;
  readonly limit: number;
}

/** One page of a provider search, and how many records match over all pages. */
export type ProviderPage = StoredPage<ProviderWithTools>;

/** A filtered, paged search of one provider's tools, in creation order (then id). */
export interface ToolSearch {
  readonly providerId: string;
  /** Case-insensitive, literal substring of the name, title, description, method or path (any of them). */
  readonly contains?: string | undefined;
  readonly after?: ProviderCursor | undefined;
  /** At most this many tools; absent: every one. */
  readonly limit?: number | undefined;
}

/** One page of a tool search, and how many tools match over all pages. */
export type ToolPage = StoredPage<ToolRow>;

/** A position in the audit order (newest first: time, then id, both descending): a page starts after it. */
export type AuditCursor = PageCursor;

/** A filtered, paged search of one tenant's audit events, newest first. */
export interface AuditSearch {
  readonly tenant: string;
  readonly targetId?: string | undefined;
  readonly operation?: string | undefined;
  /** Only events at or after this time. */
  readonly since?: Date | undefined;
  readonly after?: AuditCursor | undefined;
  readonly limit: number;
}

/** One page of an audit search, and how many events match over all pages. */
export type AuditPage = StoredPage<AuditEventRow>;

/**
 * Where a secret is kept: a SECRET variable's value, a provider's OAuth 2.0 client secret, the tokens of an
 * upstream OAuth connection, the secret of a record of the service's own OAuth authorization server, or a
 * git connection's token.
 */
export type SecretKind =
  | "gitConnectionToken"
  | "oauthServerRecord"
  | "providerClientSecret"
  | "upstreamConnection"
  | "variable"
  | "callerValue";

/** One stored secret: the record holding it and its ciphertext. */
export interface StoredSecret {
  readonly kind: SecretKind;
  readonly id: string;
  readonly ciphertext: string;
}

/** A position in the order of stored secrets (kind, then id, compared code unit by code unit). */
export interface SecretCursor {
  readonly kind: SecretKind;
  readonly id: string;
}
