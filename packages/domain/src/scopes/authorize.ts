import { Effect } from "effect";
import { PermissionDenied } from "../errors/domain-errors.js";
import type { Actor } from "../tenancy/actor.js";
import { type Operation, requiredScope } from "./scope-policy.js";

/**
 * Succeeds when the actor's token carries the scope `operation` needs (the policy table), else fails with
 * PermissionDenied naming that scope. Every use case runs it before anything else; a front end that must
 * answer 403 before reading a request body may run it earlier too and gets the same error.
 */
export const authorize = (actor: Actor, operation: Operation): Effect.Effect<void, PermissionDenied> => {
  const scope = requiredScope(operation);
  return actor.scopes.has(scope)
    ? Effect.void
    : Effect.fail(new PermissionDenied({ detail: `this operation needs the scope '${scope}'`, requiredScope: scope }));
};
