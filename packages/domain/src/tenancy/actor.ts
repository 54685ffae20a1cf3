import type { Scope } from "../scopes/scope.js";

/** Who is calling: the tenant every record is owned by, and the scopes the access token granted. */
export interface Actor {
  readonly tenant: string;
  readonly scopes: ReadonlySet<string>;
  /** The access token's subject (`sub`), for the audit trail. */
  readonly sub?: string | undefined;
  /** The OAuth client the token was issued to (`client_id`, else `azp`), for the audit trail. */
  readonly clientId?: string | undefined;
}

/** True when the actor's token carries `scope`. */
export const hasScope = (actor: Actor, scope: Scope): boolean => actor.scopes.has(scope);
