import type { DomainError } from "@mcpsm/domain/errors";
import { type testActor, testServicesLayer } from "@mcpsm/domain/testing";
import { type DomainServices, type Operation, USE_CASES, type UseCases } from "@mcpsm/domain/use-cases";
import { makeMemoryStorage } from "@mcpsm/storage-memory";
import { type Effect, Exit, ManagedRuntime } from "effect";

export type Success<O extends keyof UseCases> = Effect.Effect.Success<ReturnType<UseCases[O]>>;

/** The operations of the use-case table (the OpenAPI import, which needs the import services, is outside it). */
export const inTable = (operation: Operation): operation is keyof UseCases => operation in USE_CASES;

export const services = () => ManagedRuntime.make(testServicesLayer(makeMemoryStorage()));

/** Runs `operation` for `actor`, recording that it was called. */
export const caller = (runtime: ManagedRuntime.ManagedRuntime<DomainServices, never>, called: Set<Operation>) => {
  const exit = <O extends keyof UseCases>(
    actor: ReturnType<typeof testActor>,
    operation: O,
    input: Parameters<UseCases[O]>[1],
  ) => {
    called.add(operation);
    const useCase = USE_CASES[operation] as (
      a: typeof actor,
      i: typeof input,
    ) => Effect.Effect<Success<O>, DomainError, DomainServices>;
    return runtime.runPromiseExit(useCase(actor, input));
  };
  const ok = async <O extends keyof UseCases>(
    actor: ReturnType<typeof testActor>,
    operation: O,
    input: Parameters<UseCases[O]>[1],
  ) => {
    const result = await exit(actor, operation, input);
    if (Exit.isFailure(result)) throw new Error(`${operation} failed: ${String(result.cause)}`);
    return result.value;
  };
  const failure = async <O extends keyof UseCases>(
    actor: ReturnType<typeof testActor>,
    operation: O,
    input: Parameters<UseCases[O]>[1],
  ) => {
    const result = await exit(actor, operation, input);
    if (Exit.isSuccess(result)) throw new Error(`${operation} succeeded`);
    const error = result.cause._tag === "Fail" ? result.cause.error : undefined;
    if (error === undefined) throw new Error(`${operation} died: ${String(result.cause)}`);
    return error;
  };
  return { ok, failure };
};
