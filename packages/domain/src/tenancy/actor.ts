/**
 * Who is calling: the tenant every record is owned by, and the scopes the access token granted (checked by
 * `authorize` against the scope policy).
 */
export interface Actor {
  readonly tenant: string;
  readonly scopes: ReadonlySet<string>;
  /** The access token's subject (`sub`), for the audit trail. */
  readonly sub?: string | undefined;
  /** The OAuth client the token was issued to (`client_id`, else `azp`), for the audit trail. */
  readonly clientId?: string | undefined;
}
