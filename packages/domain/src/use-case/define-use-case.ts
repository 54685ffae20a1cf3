import { Effect } from "effect";
import type { PermissionDenied } from "../errors/domain-errors.js";
import { authorize } from "../scopes/authorize.js";
import type { Operation } from "../scopes/scope-policy.js";
import type { Actor } from "../tenancy/actor.js";

/** The input of a use case that takes none (the lists of a tenant's servers or variables). */
export type NoInput = Readonly<Record<string, never>>;

/** Where a use case keeps the name of its operation (not part of its call type, so tables stay plain functions). */
const OPERATION = Symbol.for("@mcpsm/domain/operation");

/**
 * A use case: `run(actor, input)` behind the scope check of `operation`, which comes before anything else
 * (no validation, no storage access) so every caller gets the same 403 for a token without the scope. The
 * use case knows its operation (`operationOf`), so a front end derives the operation's name and scope from it.
 */
export const defineUseCase = <I, A, E, R>(
  operation: Operation,
  run: (actor: Actor, input: I) => Effect.Effect<A, E, R>,
) =>
  Object.assign(
    (actor: Actor, input: I): Effect.Effect<A, E | PermissionDenied, R> =>
      Effect.zipRight(
        authorize(actor, operation),
        Effect.suspend(() => run(actor, input)),
      ),
    { [OPERATION]: operation },
  ) as (actor: Actor, input: I) => Effect.Effect<A, E | PermissionDenied, R>;

/** The operation a use case made by `defineUseCase` runs under (and so the scope it checks). */
export const operationOf = (useCase: (actor: Actor, input: never) => unknown): Operation => {
  const operation = (useCase as unknown as { readonly [OPERATION]?: Operation })[OPERATION];
  if (operation === undefined) throw new TypeError("not a use case made by defineUseCase");
  return operation;
};
