import type { Storage } from "@mcpsm/domain/storage";
import type { SecretCipher } from "@mcpsm/domain/use-cases";
import type { Effect, Exit } from "effect";

/** Runs domain effects (the service's ManagedRuntime fits). */
export interface EffectRunner {
  readonly runPromiseExit: <A, E>(effect: Effect.Effect<A, E, Storage | SecretCipher>) => Promise<Exit.Exit<A, E>>;
}
