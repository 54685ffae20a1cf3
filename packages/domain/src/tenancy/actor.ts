import type { Scope } from "../scopes/scope.js";

/** Who is calling: the tenant every record is owned by, and the scopes the access token granted. */
export interface Actor {
  readonly tenant: string;
  readonly scopes: ReadonlySet<string>;
}

/** True when the actor's token carries `scope`. */
export const hasScope = (actor: Actor, scope: Scope): boolean => actor.scopes.has(scope);
