import { ConfigProvider, Effect } from "effect";
import { describe, expect, it } from "vitest";
import { databaseConfig } from "../src/config/database-config.js";

// The database settings read from the environment: the point-read cache's bound (docs/decisions.md, "manysrv").

const read = (env: Record<string, string>) =>
  Effect.runPromise(Effect.withConfigProvider(databaseConfig, ConfigProvider.fromMap(new Map(Object.entries(env)))));

describe("DATABASE_READ_CACHE_ENTRIES", () => {
  it("is the adapter's default when unset, a whole number of at least 1 otherwise", async () => {
    expect((await read({})).readCacheEntries).toBeUndefined();
    const external = { DATABASE_URL: "postgres://db/x", ENCRYPTION_KEY: "k" };
    expect(await read({ ...external, DATABASE_READ_CACHE_ENTRIES: "80000" })).toMatchObject({
      mode: "external",
      readCacheEntries: 80_000,
    });
    expect((await read({ DATABASE_READ_CACHE_ENTRIES: "100" })).readCacheEntries).toBe(100);
    await expect(read({ DATABASE_READ_CACHE_ENTRIES: "0" })).rejects.toThrow();
    await expect(read({ DATABASE_READ_CACHE_ENTRIES: "many" })).rejects.toThrow();
  });
});
