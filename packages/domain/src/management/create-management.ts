import { Cause, type Effect, Exit, ManagedRuntime } from "effect";
import type { Actor } from "../tenancy/actor.js";
import { type DomainServices, type DomainServicesOptions, domainServicesLayer } from "../use-case/domain-services.js";
import { type AnyUseCase, USE_CASES, type UseCases } from "../use-case/use-case-table.js";

/** A use case as an async function: resolves with its value, rejects with its DomainError. */
export type Promised<F> = F extends (actor: Actor, input: infer I) => Effect.Effect<infer A, infer _E, infer _R>
  ? (actor: Actor, input: I) => Promise<A>
  : never;

/** Every management use case as an async function, under its operation name. */
export type Management = { readonly [O in keyof UseCases]: Promised<UseCases[O]> };

/** What `createManagement` needs: the storage adapter, the secret cipher and, optionally, a signer and quotas. */
export type ManagementOptions = DomainServicesOptions;

/**
 * The use cases for callers that do not use effect: `management.createServer(actor, { server })` resolves
 * with the record or rejects with the typed error (`InvalidArgument`, `PermissionDenied`, `NotFound`, ...;
 * check with `instanceof` or `_tag`). An unexpected failure (a bug, a lost key) rejects with the
 * underlying Error.
 */
export const createManagement = (options: ManagementOptions): Management => {
  const runtime = ManagedRuntime.make(domainServicesLayer(options));
  const run = async (effect: Effect.Effect<unknown, unknown, DomainServices>) => {
    const exit = await runtime.runPromiseExit(effect);
    if (Exit.isSuccess(exit)) return exit.value;
    const failure = Cause.failureOption(exit.cause);
    throw failure._tag === "Some" ? failure.value : Cause.squash(exit.cause);
  };
  return Object.fromEntries(
    Object.entries(USE_CASES).map(([operation, useCase]) => [
      operation,
      (actor: Actor, input: unknown) => run((useCase as AnyUseCase)(actor, input)),
    ]),
  ) as unknown as Management;
};
