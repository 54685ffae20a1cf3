import { Effect } from "effect";
import { PermissionDenied } from "../errors/domain-errors.js";
import type { Actor } from "../tenancy/actor.js";
import { type Operation, requiredScope } from "./scope-policy.js";

/**
 * The refusal of `operation` to `actor` when its token lacks the scope the policy table names; undefined
 * when the actor may run it. The plain-value form of `authorize`, for front ends that check before
 * running any effect.
 */
export const scopeRefusal = (actor: Actor, operation: Operation): PermissionDenied | undefined => {
  const scope = requiredScope(operation);
  return actor.scopes.has(scope)
    ? undefined
    : new PermissionDenied({ detail: `this operation needs the scope '${scope}'`, requiredScope: scope });
};

/**
 * Succeeds when the actor's token carries the scope `operation` needs (the policy table), else fails with
 * PermissionDenied naming that scope. Every use case runs it before anything else; a front end that must
 * answer 403 before reading a request body may run it earlier too (or `scopeRefusal`) and gets the same error.
 */
export const authorize = (actor: Actor, operation: Operation): Effect.Effect<void, PermissionDenied> => {
  const refusal = scopeRefusal(actor, operation);
  return refusal === undefined ? Effect.void : Effect.fail(refusal);
};
