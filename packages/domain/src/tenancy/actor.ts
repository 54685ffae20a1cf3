/**
 * Who is calling: the tenant every record is owned by, and the scopes the access token granted (checked by
 * `authorize` against the scope policy).
 */
export interface Actor {
  readonly tenant: string;
  readonly scopes: ReadonlySet<string>;
}
