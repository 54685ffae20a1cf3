import type { Storage } from "@mcpsm/domain/storage";
import type { SecretCipher } from "@mcpsm/domain/use-cases";
import type { EffectRunner } from "@mcpsm/upstream-http";
import { Cause, type Effect, Exit } from "effect";

/** `effect` run to its value; its failure (an outage of the store) or defect is thrown, squashed to one error. */
export const run = async <A, E>(
  runner: EffectRunner,
  effect: Effect.Effect<A, E, Storage | SecretCipher>,
): Promise<A> => {
  const exit = await runner.runPromiseExit(effect);
  if (Exit.isSuccess(exit)) return exit.value;
  throw Cause.squash(exit.cause);
};
