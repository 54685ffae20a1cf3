import { Config, ConfigError, Effect, Either, Option } from "effect";

/** Where records live: an embedded PostgreSQL (PGlite) under DATA_DIR, or an external PostgreSQL server. */
export type DatabaseConfig = (
  | { readonly mode: "embedded" }
  | { readonly mode: "external"; readonly url: string; readonly poolSize: number }
) & {
  /** Apply pending migrations at start-up (default true). */
  readonly migrateOnStart: boolean;
  /**
   * The bound of the point-read cache, by weight (a row 1, a server's graph its rows): DATABASE_READ_CACHE_ENTRIES,
   * default 40,000 (storage-postgres: DEFAULT_MAX_ENTRIES; docs/decisions.md, "manysrv").
   */
  readonly readCacheEntries?: number | undefined;
};

const databaseUrl = Config.string("DATABASE_URL").pipe(
  Config.mapOrFail((value) => {
    try {
      const url = new URL(value);
      if (url.protocol === "postgres:" || url.protocol === "postgresql:") return Either.right(value);
    } catch {}
    return Either.left(ConfigError.InvalidData(["DATABASE_URL"], "must be a postgres:// or postgresql:// URL"));
  }),
);

/** The database configuration, read from the environment. */
export const databaseConfig: Config.Config<DatabaseConfig> = Config.all({
  url: Config.option(databaseUrl),
  poolSize: Config.integer("DATABASE_POOL_SIZE").pipe(
    Config.validate({ message: "must be a whole number from 1 to 1000", validation: (n) => n >= 1 && n <= 1000 }),
    Config.withDefault(10),
  ),
  migrateOnStart: Config.boolean("DATABASE_MIGRATE_ON_START").pipe(Config.withDefault(true)),
  readCacheEntries: Config.option(
    Config.integer("DATABASE_READ_CACHE_ENTRIES").pipe(
      Config.validate({ message: "must be a whole number of at least 1", validation: (n) => n >= 1 }),
    ),
  ).pipe(Config.map(Option.getOrUndefined)),
  encryptionKeySet: Config.option(Config.string("ENCRYPTION_KEY")).pipe(Config.map(Option.isSome)),
}).pipe(
  Config.mapOrFail(
    ({
      url,
      poolSize,
      migrateOnStart,
      readCacheEntries,
      encryptionKeySet,
    }): Either.Either<DatabaseConfig, ConfigError.ConfigError> => {
      if (Option.isNone(url)) return Either.right({ mode: "embedded" as const, migrateOnStart, readCacheEntries });
      // With a shared database, a key generated into one instance's DATA_DIR would make secrets unreadable to others.
      if (!encryptionKeySet)
        return Either.left(
          ConfigError.MissingData(["ENCRYPTION_KEY"], "ENCRYPTION_KEY is required when DATABASE_URL is set"),
        );
      return Either.right({ mode: "external" as const, url: url.value, poolSize, migrateOnStart, readCacheEntries });
    },
  ),
);

/** Loads the database configuration, or a readable message listing every bad value. */
export const loadDatabaseConfig = (): Promise<Either.Either<DatabaseConfig, string>> =>
  Effect.runPromise(
    Effect.either(databaseConfig).pipe(
      Effect.map(Either.mapLeft((error) => `invalid configuration: ${String(error)}`)),
    ),
  );

/** A database URL with its password removed, for logs. */
export const redactedUrl = (value: string): string => {
  const url = new URL(value);
  if (url.password !== "") url.password = "***";
  return url.toString();
};
