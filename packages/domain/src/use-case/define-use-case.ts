import { Effect } from "effect";
import type { PermissionDenied } from "../errors/domain-errors.js";
import { authorize } from "../scopes/authorize.js";
import type { Operation } from "../scopes/scope-policy.js";
import type { Actor } from "../tenancy/actor.js";

/** The input of a use case that takes none (the lists of a tenant's servers or variables). */
export type NoInput = Readonly<Record<string, never>>;

/**
 * A use case: `run(actor, input)` behind the scope check of `operation`, which comes before anything else
 * (no validation, no storage access) so every caller gets the same 403 for a token without the scope.
 */
export const defineUseCase =
  <I, A, E, R>(operation: Operation, run: (actor: Actor, input: I) => Effect.Effect<A, E, R>) =>
  (actor: Actor, input: I): Effect.Effect<A, E | PermissionDenied, R> =>
    Effect.zipRight(
      authorize(actor, operation),
      Effect.suspend(() => run(actor, input)),
    );
