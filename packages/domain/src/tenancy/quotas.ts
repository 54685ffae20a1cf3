import { Context, Layer } from "effect";

/** Per-tenant limits on how many records may exist; a create beyond one answers RESOURCE_EXHAUSTED. */
export class Quotas extends Context.Tag("@mcpsm/domain/Quotas")<
  Quotas,
  {
    readonly serversPerTenant: number;
    readonly variablesPerTenant: number;
    readonly providersPerTenant: number;
    readonly toolsPerProvider: number;
    readonly tokensPerServer: number;
  }
>() {}

/** The defaults (docs/api-rules.md §11; docs/decisions.md for providers, tools and tokens). */
export const DEFAULT_QUOTAS: typeof Quotas.Service = {
  serversPerTenant: 1_000,
  variablesPerTenant: 10_000,
  providersPerTenant: 1_000,
  toolsPerProvider: 1_000,
  tokensPerServer: 100,
};

/** A Quotas layer; unspecified limits take the defaults. */
export const quotasLayer = (overrides: Partial<typeof Quotas.Service> = {}) =>
  Layer.succeed(Quotas, { ...DEFAULT_QUOTAS, ...overrides });
