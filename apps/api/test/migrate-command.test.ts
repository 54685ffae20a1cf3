import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MIGRATIONS, makePostgresStorage } from "@mcpsm/storage-postgres";
import { createServerDatabase, type ServerDatabase } from "@mcpsm/storage-postgres/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mintDevToken } from "../src/auth/dev-auth.js";
import { clientFor } from "./support/harness.js";
import { expectStatus } from "./support/problems.js";
import { serverWrite } from "./support/records.js";
import {
  encryptionKey,
  MIGRATE,
  runCommand,
  type ServiceProcess,
  startServiceProcess,
} from "./support/service-process.js";

// The `migrate` command (dist/cli/migrate.js) applies the committed migrations and prints their names; run
// again it has nothing to do; and a service told not to migrate (DATABASE_MIGRATE_ON_START=false) refuses
// to start while migrations are pending, and starts on the database the command migrated. On the embedded
// database (DATA_DIR) always, and on a throwaway database of the TEST_DATABASE_URL server when that is set.

const serverUrl = process.env.TEST_DATABASE_URL || undefined;
const names = MIGRATIONS.map((m) => m.name);

interface Case {
  readonly name: string;
  /** The environment selecting the database, with DATA_DIR. */
  readonly open: (
    dataDir: string,
  ) => Promise<{ readonly env: Record<string, string>; readonly dispose: () => Promise<void> }>;
}

const cases: ReadonlyArray<Case> = [
  { name: "embedded PGlite (DATA_DIR)", open: async () => ({ env: {}, dispose: async () => {} }) },
  ...(serverUrl === undefined
    ? []
    : [
        {
          name: "PostgreSQL server (DATABASE_URL)",
          open: async () => {
            const database: ServerDatabase = await createServerDatabase(serverUrl);
            return { env: { DATABASE_URL: database.url, ENCRYPTION_KEY: encryptionKey() }, dispose: database.dispose };
          },
        },
      ]),
];

// Each step starts a process that opens the target's database; on the embedded target that includes PGlite
// compiling PostgreSQL's module and running every migration, which took over 30 s on a loaded 2-core machine.
// What is asserted is each exit and answer, never its time.
for (const target of cases)
  describe(`migrate command (${target.name})`, { timeout: 120_000 }, () => {
    let dataDir: string;
    let env: Record<string, string>;
    let dispose: (() => Promise<void>) | undefined;
    let service: ServiceProcess | undefined;

    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), "mcpsm-migrate-"));
      const opened = await target.open(dataDir);
      dispose = opened.dispose;
      env = { ...opened.env, DATA_DIR: dataDir };
    });
    afterAll(async () => {
      await service?.stop();
      await dispose?.();
      if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
    });

    it("with DATABASE_MIGRATE_ON_START=false on a database never migrated, the service refuses to start (exit 2, naming what is pending)", async () => {
      const refused = startServiceProcess({ ...env, DATABASE_MIGRATE_ON_START: "false" });
      expect(await refused.exited, refused.stderr()).toEqual({ code: 2, signal: null });
      const fatal = refused.logs.find((entry) => entry.level === 60);
      expect(fatal, JSON.stringify(refused.logs)).toMatchObject({ pending: names });
      expect(fatal!.msg).toMatch(/run the migrate command/);
      expect(refused.logs.some((entry) => entry.msg === "listening")).toBe(false);
    });

    it("on a fresh database applies the initial migration and prints its name; a second run has nothing to do", async () => {
      expect(names.length).toBeGreaterThan(0);
      expect(names[0]).toMatch(/_initial$/);
      const first = await runCommand(MIGRATE, env);
      expect(first, first.stderr).toMatchObject({ code: 0, stdout: `migrate: applied ${names.join(", ")}\n` });
      const second = await runCommand(MIGRATE, env);
      expect(second, second.stderr).toMatchObject({ code: 0, stdout: "migrate: the schema is up to date\n" });
      if (env.DATABASE_URL !== undefined) {
        // The database itself has nothing pending.
        const handle = await makePostgresStorage({ url: env.DATABASE_URL, poolSize: 1 });
        try {
          expect(await handle.pendingMigrations()).toEqual([]);
        } finally {
          await handle.close();
        }
      }
    });

    it("with DATABASE_MIGRATE_ON_START=false the service starts on the migrated database and serves", async () => {
      service = startServiceProcess({ ...env, DATABASE_MIGRATE_ON_START: "false" });
      const url = await service.listening(60_000);
      expectStatus(await clientFor(url).get("/readyz"), 200);
      const api = clientFor(url, await mintDevToken(dataDir, { subject: "migrated" }));
      const created = await api.post("/servers", { server: serverWrite() });
      expectStatus(created, 201);
      expect((await api.get("/servers")).body.servers.map((s: { id: string }) => s.id)).toEqual([
        created.body.server.id,
      ]);
      expect(service.logs.some((entry) => String(entry.msg).startsWith("applying migrations"))).toBe(false);
      expect(await service.stop()).toEqual({ code: 0, signal: null });
    });
  });
