import { ResourceExhausted } from "@mcpsm/domain/errors";
import { Context, Effect } from "effect";

/**
 * How many imports each tenant runs at once, in this instance: one tenant cannot take every worker that reads
 * descriptions (the pool bounds the instance as a whole).
 */
export class ImportGate extends Context.Tag("@mcpsm/api/ImportGate")<
  ImportGate,
  { readonly perTenant: number; readonly running: Map<string, number> }
>() {}

export const importGate = (perTenant: number): typeof ImportGate.Service => ({ perTenant, running: new Map() });

/** Runs `effect` as one of the tenant's imports, or fails with 429 when the tenant runs as many as it may. */
export const gated = <A, E, R>(
  tenant: string,
  effect: Effect.Effect<A, E, R>,
): Effect.Effect<A, E | ResourceExhausted, R | ImportGate> =>
  Effect.flatMap(ImportGate, ({ perTenant, running }): Effect.Effect<A, E | ResourceExhausted, R> => {
    const now = running.get(tenant) ?? 0;
    if (now >= perTenant)
      return Effect.fail(
        new ResourceExhausted({
          detail: `this tenant is running ${now} imports; it may run at most ${perTenant} at once`,
          retryAfterSeconds: 1,
        }),
      );
    running.set(tenant, now + 1);
    return Effect.ensuring(
      effect,
      Effect.sync(() => {
        const left = (running.get(tenant) ?? 1) - 1;
        if (left <= 0) running.delete(tenant);
        else running.set(tenant, left);
      }),
    );
  });
