import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MIGRATIONS, makePostgresStorage, startEmbeddedPostgres } from "@mcpsm/storage-postgres";
import { afterAll, describe, expect, it } from "vitest";
import { createEmbeddedDatabase } from "../src/storage/create-embedded-database.js";

describe("a new embedded database, created by a child process", () => {
  const dirs: Array<string> = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("has every migration applied, and opens with nothing pending", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mcpsm-create-embedded-"));
    dirs.push(dir);
    const pgDataDir = join(dir, "pgdata");
    expect(await createEmbeddedDatabase(pgDataDir)).toEqual(MIGRATIONS.map((m) => m.name));
    const embedded = await startEmbeddedPostgres(pgDataDir);
    try {
      const storage = await makePostgresStorage(embedded.storageOptions);
      try {
        expect(await storage.pendingMigrations()).toEqual([]);
      } finally {
        await storage.close();
      }
    } finally {
      await embedded.stop();
    }
  }, 120_000);

  it("fails with what the child reported when the database cannot be created", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mcpsm-create-embedded-"));
    dirs.push(dir);
    const file = join(dir, "a-file");
    await writeFile(file, "not a directory");
    await expect(createEmbeddedDatabase(join(file, "pgdata"))).rejects.toThrow(
      /creating the embedded database failed \(child exit 1\): .*(ENOTDIR|not a directory)/s,
    );
  }, 60_000);
});
