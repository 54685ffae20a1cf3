import type { Storage } from "@mcpsm/domain/storage";
import { MemoryStorageLive } from "@mcpsm/storage-memory";
import { makePostgresStorage } from "@mcpsm/storage-postgres";
import { createServerDatabase } from "@mcpsm/storage-postgres/testing";
import { Effect, Layer } from "effect";

/**
 * The one switch point of the HTTP suite's store: every service the suite starts (harness.ts) takes its
 * storage layer from here. Today that is the in-memory store; the PostgreSQL run will choose its layer here
 * (on an environment variable) and nothing else in the suite changes.
 *
 * What a layer returned here must give:
 * - an EMPTY store of its own on every call (for PostgreSQL: a fresh database or schema per call). Files run
 *   in parallel and some tests list every provider a tenant can see, which includes every PUBLIC provider in
 *   the store; records left by other files would break them.
 * - its resources tied to the layer's scope (acquireRelease): the harness builds the layer once per service
 *   and releases it when the service stops. Building may fail (a database that cannot be reached).
 */
export const testStorage = (): Layer.Layer<Storage, unknown> =>
  process.env.API_TEST_STORAGE === "postgres" ? postgresTestStorage() : MemoryStorageLive;

/** A fresh, migrated database on the TEST_DATABASE_URL server, dropped when the layer is released. */
const postgresTestStorage = (): Layer.Layer<Storage, unknown> =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const serverUrl = process.env.TEST_DATABASE_URL;
      if (serverUrl === undefined || serverUrl === "")
        return yield* Effect.die(new Error("API_TEST_STORAGE=postgres needs TEST_DATABASE_URL"));
      const database = yield* Effect.acquireRelease(
        Effect.tryPromise(() => createServerDatabase(serverUrl)),
        (db) => Effect.promise(() => db.dispose()),
      );
      const postgres = yield* Effect.acquireRelease(
        Effect.tryPromise(() => makePostgresStorage({ url: database.url, poolSize: 4, readCache: {} })),
        (pg) => Effect.promise(() => pg.close()),
      );
      yield* Effect.tryPromise(() => postgres.migrate());
      return postgres.layer;
    }),
  );
