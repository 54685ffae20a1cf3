import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type * as E from "@mcpsm/domain/errors";
import * as R from "@mcpsm/domain";
import * as I from "@mcpsm/domain/openapi-import";
import * as U from "@mcpsm/domain/use-cases";
import { MemoryStorageLive } from "@mcpsm/storage-memory";
import { Cause, Effect, Exit, Layer, ManagedRuntime } from "effect";
import { openApiReaderLayer } from "../../src/index.js";

/** The domain services over an empty in-memory store, with this package's reader. */
export const makeServices = (quotas: Partial<typeof U.Quotas.Service> = {}) =>
  ManagedRuntime.make(
    Layer.mergeAll(
      MemoryStorageLive,
      U.aesGcmCipherLayer(new Uint8Array(randomBytes(32))),
      U.hmacPageTokenSignerLayer(new Uint8Array(randomBytes(32))),
      U.quotasLayer(quotas),
      openApiReaderLayer,
    ),
  );
export type Services = ReturnType<typeof makeServices>;

export const actor = (tenant = "tenant-a"): R.Actor => ({ tenant, scopes: new Set(R.ALL_SCOPES) });

/** Runs a use case; a failure comes back as the typed error (a defect fails the test). */
export const attempt = async <A>(services: Services, effect: Effect.Effect<A, E.DomainError, unknown>) => {
  const exit = await services.runPromiseExit(effect as Effect.Effect<A, E.DomainError, never>);
  if (Exit.isSuccess(exit)) return { ok: true as const, value: exit.value };
  const failure = Cause.failureOption(exit.cause);
  if (failure._tag === "None") throw new Error(Cause.pretty(exit.cause));
  return { ok: false as const, error: failure.value };
};

/** Runs a use case that must succeed. */
export const run = async <A>(services: Services, effect: Effect.Effect<A, E.DomainError, unknown>): Promise<A> => {
  const result = await attempt(services, effect);
  if (!result.ok) throw new Error(`${result.error._tag}: ${JSON.stringify(result.error)}`);
  return result.value;
};

/** Runs a use case that must fail, answering its error. */
export const refused = async (services: Services, effect: Effect.Effect<unknown, E.DomainError, unknown>) => {
  const result = await attempt(services, effect);
  if (result.ok) throw new Error("expected a refusal");
  return result.error;
};

/** An import's input with the document given inline (`POST /providers/import` as the use case sees it). */
export const importBody = (document: unknown, extra: Record<string, unknown> = {}) =>
  ({ source: { _tag: "Document", document }, ...extra }) as I.ProviderImportInput;

/** A re-sync's input with the document given inline. */
export const resyncBody = (providerId: string, document: unknown, extra: Record<string, unknown> = {}) =>
  ({ providerId, source: { _tag: "Document", document }, ...extra }) as I.ProviderResyncInput;

/** An input whose description is fetched from `url` (see `servedAt`). */
export const fromUrl = <T extends { readonly source: I.DescriptionSource }>(input: T, url: string): T => ({
  ...input,
  source: { _tag: "Url", url },
});

/** Runs `effect` with a DescriptionFetcher that serves `document` at `url` alone (an in-memory adapter). */
export const servedAt = <A, E, R>(url: string, document: unknown, effect: Effect.Effect<A, E, R>) =>
  Effect.provideService(effect, I.DescriptionFetcher, {
    fetch: (asked) =>
      asked === url
        ? Effect.succeed(typeof document === "string" ? document : JSON.stringify(document))
        : Effect.die(new Error(`nothing is served at ${asked}`)),
  });

const require = createRequire(import.meta.url);

/** A file shipped by an npm package installed as a dev dependency. */
export const packageFile = (pkg: string, path: string): string =>
  readFileSync(join(dirname(require.resolve(`${pkg}/package.json`)), path), "utf8");
