import { spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { aesGcmCipher } from "@mcpsm/domain";
import { Storage } from "@mcpsm/domain/storage";
import { aesGcmCipherLayer, keyIdOf, rekeySecrets } from "@mcpsm/domain/use-cases";
import { makeMemoryStorage } from "@mcpsm/storage-memory";
import { makePostgresStorage, type PostgresStorage, startEmbeddedPostgres } from "@mcpsm/storage-postgres";
import { createServerDatabase } from "@mcpsm/storage-postgres/testing";
import { Effect, Layer, ManagedRuntime } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../src/http/route-table.js";
import { embeddedDataDir } from "../src/storage/open-storage.js";
import { startTestService, type Tenant, type TestService } from "./support/harness.js";
import { leakedIn, plantedCount } from "./support/planted-secrets.js";
import { expectInvalid, expectProblem, expectStatus } from "./support/problems.js";
import { createProvider, createServer, createToken, createVariable, uniq } from "./support/records.js";
import { callFor, makeRouteFixture } from "./support/route-fixture.js";

// Secrets at rest and in transit (issue: "Secrets"). Client secrets and SECRET variable values are stored as
// AES-256-GCM ciphertext under a key id; server tokens only as a SHA-256. The raw rows of every store (memory,
// embedded PGlite, and the PostgreSQL server of TEST_DATABASE_URL when set) hold none of the plaintext. Keys
// rotate: ENCRYPTION_KEYS_OLD still decrypts, `rekey` re-encrypts everything under ENCRYPTION_KEY. No answer
// and no log line repeats a planted secret (the harness checks that for every request of every file, see
// support/planted-secrets.ts; this file plants them deliberately and walks every read route and error path).

const key = () => new Uint8Array(randomBytes(32));
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const distinct = (label: string) => `${label}-${randomBytes(16).toString("hex")}`;

/** What one tenant planted through the API. */
interface Planted {
  readonly clientSecret: string;
  readonly secretValue: string;
  readonly tokenValue: string;
  readonly providerId: string;
  readonly variableId: string;
  readonly serverId: string;
}

const plantSecrets = async (api: Tenant["api"]): Promise<Planted> => {
  const clientSecret = distinct("client-secret");
  const secretValue = distinct("secret-variable");
  const provider = await createProvider(api, {
    oauth2Config: {
      clientID: "client-id",
      clientSecret,
      authURL: "https://auth.example.com/a",
      tokenURL: "https://auth.example.com/t",
    },
  });
  const variable = await createVariable(api, {
    type: "SECRET",
    name: `API_EXAMPLE_COM_${uniq().toUpperCase()}`,
    value: secretValue,
  });
  const server = await createServer(api);
  const token = await createToken(api, server.id);
  return {
    clientSecret,
    secretValue,
    tokenValue: token.value,
    providerId: provider.id,
    variableId: variable.id,
    serverId: server.id,
  };
};

/** Stores to check at rest: memory always, embedded PGlite always, the PostgreSQL server when configured. */
interface RawStore {
  readonly name: string;
  readonly layer: Layer.Layer<Storage>;
  /** Every row of every table as text (null for the memory store, read through the port instead). */
  readonly rawRows: () => Promise<string>;
  readonly dispose: () => Promise<void>;
}

const sqlStore = (name: string, handle: PostgresStorage, extra: () => Promise<void>): RawStore => ({
  name,
  layer: handle.layer,
  rawRows: async () => {
    const connection = handle.orm.em.getConnection();
    const tables = ["providers", "tools", "prompts", "resources", "variables", "servers", "server_tokens"];
    const dumps = await Promise.all(
      tables.map((t) => connection.execute(`select row_to_json(x)::text as r from ${t} x`)),
    );
    return dumps
      .flat()
      .map((row) => String((row as { r: string }).r))
      .join("\n");
  },
  dispose: async () => {
    await handle.close();
    await extra();
  },
});

const openStores = async (): Promise<Array<RawStore>> => {
  const memory = makeMemoryStorage();
  const stores: Array<RawStore> = [
    {
      name: "memory",
      layer: Layer.succeed(Storage, memory),
      // The memory store has no raw form beyond its rows: read every row through the port.
      rawRows: async () => "",
      dispose: async () => {},
    },
  ];
  const dir = await mkdtemp(join(tmpdir(), "mcpsm-secrets-pglite-"));
  const embedded = await startEmbeddedPostgres(embeddedDataDir(dir));
  const pglite = await makePostgresStorage(embedded.storageOptions);
  await pglite.migrate();
  stores.push(
    sqlStore("embedded PGlite", pglite, async () => {
      await embedded.stop();
      await rm(dir, { recursive: true, force: true });
    }),
  );
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (serverUrl) {
    const database = await createServerDatabase(serverUrl);
    const handle = await makePostgresStorage({ url: database.url, poolSize: 2 });
    await handle.migrate();
    stores.push(sqlStore("PostgreSQL server", handle, database.dispose));
  }
  return stores;
};

/** Every row of a tenant read through the storage port, as text. */
const portDump = (svc: TestService, tenant: string) =>
  svc.inspect((tx) =>
    Effect.gen(function* () {
      const providers = (yield* tx.searchProviders({ viewerTenant: tenant, limit: 1000 })).items;
      const servers = yield* tx.listServerGraphs(tenant);
      const tokens = yield* Effect.forEach(servers, (g) => tx.listServerTokens(g.server.id));
      const variables = yield* tx.listVariables(tenant);
      return JSON.stringify({ providers, servers, tokens, variables });
    }),
  );

let stores: Array<RawStore> = [];
beforeAll(async () => {
  stores = await openStores();
}, 120_000);
afterAll(async () => {
  for (const store of stores) await store.dispose();
});

describe("secrets at rest", () => {
  it("no store keeps a plaintext secret: ciphertexts name the key, server tokens are SHA-256 hashes", async () => {
    for (const store of stores) {
      const encryptionKey = key();
      const svc = await startTestService({ ownStorage: store.layer, encryptionKey });
      try {
        const tenant = await svc.tenant("at-rest");
        const planted = await plantSecrets(tenant.api);
        const dump = `${await portDump(svc, tenant.id)}\n${await store.rawRows()}`;
        expect(dump, store.name).toContain(planted.providerId);
        for (const secret of [planted.clientSecret, planted.secretValue, planted.tokenValue])
          expect(dump.includes(secret), `${store.name} holds a plaintext secret`).toBe(false);
        // Not even base64 of the plaintext (a "protection" that is only an encoding).
        for (const secret of [planted.clientSecret, planted.secretValue])
          expect(dump.includes(Buffer.from(secret).toString("base64").slice(0, 24)), store.name).toBe(false);
        const provider = await svc.inspect((tx) => tx.findProvider(planted.providerId));
        const variable = await svc.inspect((tx) => tx.findVariable(planted.variableId));
        const cipher = aesGcmCipher(encryptionKey);
        for (const ciphertext of [provider?.oauth2Config?.clientSecretCipher ?? "", variable?.value ?? ""]) {
          expect(ciphertext).toMatch(new RegExp(`^v1\\.${keyIdOf(encryptionKey)}\\.[A-Za-z0-9_-]+$`));
          expect(cipher.isCurrent(ciphertext)).toBe(true);
        }
        expect(Effect.runSync(cipher.decrypt(variable?.value ?? ""))).toBe(planted.secretValue);
        const tokens = await svc.inspect((tx) => tx.listServerTokens(planted.serverId));
        expect(tokens[0]?.valueHash).toBe(createHash("sha256").update(planted.tokenValue).digest("hex"));
      } finally {
        await svc.close();
      }
    }
  });
});

describe("key rotation", () => {
  it("ENCRYPTION_KEYS_OLD still decrypts and accepts old page tokens; rekey moves every secret to the new key", async () => {
    for (const store of stores) {
      const [oldKey, newKey] = [key(), key()];
      const before = await startTestService({ ownStorage: store.layer, encryptionKey: oldKey });
      const tenant = await before.tenant("rotation");
      const planted = await plantSecrets(tenant.api);
      await createProvider(tenant.api);
      const page = await tenant.api.get("/providers?limit=1");
      expect(page.body.nextToken).not.toBe("");
      await before.close();

      // The new key with the old one listed: everything keeps working, pages continue.
      const during = await startTestService({
        ownStorage: store.layer,
        encryptionKey: newKey,
        encryptionKeysOld: [oldKey],
      });
      const api = during.client(await during.token(tenant.id));
      expectStatus(await api.get(`/providers?limit=1&token=${encodeURIComponent(page.body.nextToken)}`), 200);
      // A change written now is under the new key; the untouched secret stays under the old one until rekey.
      expectStatus(
        await api.patch(`/variables/${planted.variableId}`, { variable: { value: distinct("rotated") } }),
        200,
      );
      const rotated = await during.inspect((tx) => tx.findVariable(planted.variableId));
      expect(rotated?.value.split(".")[1]).toBe(keyIdOf(newKey));

      const runtime = ManagedRuntime.make(Layer.merge(store.layer, aesGcmCipherLayer(newKey, [oldKey])));
      const first = await runtime.runPromise(rekeySecrets(1));
      // Secrets planted by the test above, under a key this rotation does not know, are reported, not touched.
      const unknown = first.unknownKey.map((secret) => secret.id);
      expect(unknown).not.toContain(planted.variableId);
      expect(unknown).not.toContain(planted.providerId);
      expect(first.reencrypted).toBeGreaterThanOrEqual(1);
      const second = await runtime.runPromise(rekeySecrets());
      expect(second.reencrypted).toBe(0);
      expect(second.current).toBe(first.reencrypted + first.current);
      const provider = await during.inspect((tx) => tx.findProvider(planted.providerId));
      const onlyNew = aesGcmCipher(newKey);
      expect(Effect.runSync(onlyNew.decrypt(provider?.oauth2Config?.clientSecretCipher ?? ""))).toBe(
        planted.clientSecret,
      );
      // Rekeying changed no version or timestamp: the secret is the same.
      expect(provider?.version).toBe(1);
      await runtime.dispose();
      await during.close();

      // Without the old key, the service still serves everything (pages signed under the old key are refused).
      const after = await startTestService({ ownStorage: store.layer, encryptionKey: newKey });
      const afterApi = after.client(await after.token(tenant.id));
      expectStatus(await afterApi.get(`/providers/${planted.providerId}`), 200);
      expectInvalid(await afterApi.get(`/providers?limit=1&token=${encodeURIComponent(page.body.nextToken)}`));
      await after.close();
    }
  });

  it("rekey leaves a secret under an unknown key alone and reports it", async () => {
    const memory = makeMemoryStorage();
    const layer = Layer.succeed(Storage, memory);
    const stranger = key();
    const svc = await startTestService({ ownStorage: layer, encryptionKey: stranger });
    const tenant = await svc.tenant("stranger");
    const planted = await plantSecrets(tenant.api);
    await svc.close();
    const runtime = ManagedRuntime.make(Layer.merge(layer, aesGcmCipherLayer(key(), [key()])));
    const report = await runtime.runPromise(rekeySecrets());
    await runtime.dispose();
    expect(report.reencrypted).toBe(0);
    expect(report.unknownKey).toEqual(
      expect.arrayContaining([
        { kind: "providerClientSecret", id: planted.providerId },
        { kind: "variable", id: planted.variableId },
      ]),
    );
    const row = await Effect.runPromise(memory.read((tx) => tx.findVariable(planted.variableId)));
    expect(row?.value.split(".")[1]).toBe(keyIdOf(stranger));
  });

  it("the rekey command re-encrypts a PostgreSQL database and exits 0; an unknown key makes it exit 1", async () => {
    const cli = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "cli", "rekey.js");
    const [oldKey, newKey] = [key(), key()];
    const dataDir = await mkdtemp(join(tmpdir(), "mcpsm-rekey-cli-"));
    const serverUrl = process.env.TEST_DATABASE_URL;
    const database = serverUrl ? await createServerDatabase(serverUrl) : undefined;
    const { DATABASE_URL: _ignored, ...inherited } = process.env;
    const env = {
      ...inherited,
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      ...(database ? { DATABASE_URL: database.url } : {}),
    };
    try {
      // Plant with the old key through a service on that database, then stop it.
      const embedded = database ? undefined : await startEmbeddedPostgres(embeddedDataDir(dataDir));
      const handle = await makePostgresStorage(database ? { url: database.url } : embedded!.storageOptions);
      await handle.migrate();
      const svc = await startTestService({ ownStorage: handle.layer, encryptionKey: oldKey });
      const tenant = await svc.tenant("cli");
      const planted = await plantSecrets(tenant.api);
      await svc.close();
      await handle.close();
      await embedded?.stop();

      const run = (keys: { ENCRYPTION_KEY: string; ENCRYPTION_KEYS_OLD?: string }) =>
        spawnSync(process.execPath, [cli], { env: { ...env, ...keys }, encoding: "utf8", timeout: 60_000 });
      const missingOld = run({ ENCRYPTION_KEY: b64(newKey) });
      expect(missingOld.status, missingOld.stderr).toBe(1);
      expect(missingOld.stdout).toContain("2 under an unknown key");
      const done = run({ ENCRYPTION_KEY: b64(newKey), ENCRYPTION_KEYS_OLD: `${b64(key())}, ${b64(oldKey)}` });
      expect(done.status, done.stderr).toBe(0);
      expect(done.stdout).toContain("2 re-encrypted");
      const again = run({ ENCRYPTION_KEY: b64(newKey) });
      expect(again.status, again.stderr).toBe(0);
      expect(again.stdout).toContain("0 re-encrypted, 2 already under the current key");
      for (const output of [missingOld, done, again]) expect(leakedIn(output.stdout + output.stderr)).toEqual([]);

      const reopened = database ? undefined : await startEmbeddedPostgres(embeddedDataDir(dataDir));
      const check = await makePostgresStorage(database ? { url: database.url } : reopened!.storageOptions);
      const variable = await ManagedRuntime.make(check.layer).runPromise(
        Effect.flatMap(Storage, (s) => s.read((tx) => tx.findVariable(planted.variableId))),
      );
      expect(Effect.runSync(aesGcmCipher(newKey).decrypt(variable?.value ?? ""))).toBe(planted.secretValue);
      await check.close();
      await reopened?.stop();
    } finally {
      await database?.dispose();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("no answer or log line carries a secret", () => {
  let svc: TestService;
  let owner: Tenant;
  let planted: Planted;

  beforeAll(async () => {
    svc = await startTestService();
    owner = await svc.tenant("leaks");
    planted = await plantSecrets(owner.api);
  });
  afterAll(() => svc?.close());

  it("the detector is armed: it watches the planted secrets and would name a leak", () => {
    // Client secret, SECRET value, server token, and this tenant's access token at least.
    expect(plantedCount()).toBeGreaterThanOrEqual(4);
    expect(leakedIn(`{"x":"${planted.clientSecret}"}`)).toEqual(["client secret"]);
    expect(leakedIn(`Bearer ${owner.token}`)).toEqual(["access token"]);
    expect(leakedIn("nothing here")).toEqual([]);
  });

  it("every read route of a fixture whose provider has a client secret (each answer is searched)", async () => {
    const fixture = await makeRouteFixture(owner.api, {
      oauth2Config: { clientID: "c", clientSecret: distinct("fixture-client-secret"), authURL: "", tokenURL: "" },
    });
    const reads = ROUTES.filter((r) => r.method === "GET");
    for (const route of reads) {
      const { path } = callFor(route, fixture);
      expectStatus(await owner.api.get(path), 200);
    }
    for (const path of [
      `/providers/${planted.providerId}`,
      `/variables/${planted.variableId}`,
      `/servers/${planted.serverId}/tokens`,
    ])
      expectStatus(await owner.api.get(path), 200);
    expect(reads.length).toBeGreaterThanOrEqual(17);
  });

  it("error answers about a write that carries a secret never repeat it", async () => {
    const secret = distinct("error-path-secret");
    const attempts = [
      // Unknown field next to the secret, wrong type beside it, a NUL inside it, a value too long.
      { provider: { name: "p", baseURL: "https://x.example", oauth2Config: { clientSecret: secret, bogus: 1 } } },
      { provider: { name: 7, baseURL: "nope", oauth2Config: { clientSecret: secret } } },
      { provider: { name: "p", baseURL: "https://x.example", oauth2Config: { clientSecret: `${secret}\u0000` } } },
      { provider: { name: "p", baseURL: "https://x.example", oauth2Config: { clientSecret: 42, clientID: secret } } },
    ];
    for (const body of attempts) {
      const res = await owner.api.post("/providers", body);
      expectInvalid(res);
      expect(res.text).not.toContain(secret);
    }
    const variable = distinct("variable-error-secret");
    for (const body of [
      { variable: { type: "SECRET", name: "bad name!", value: variable } },
      { variable: { type: "SECRET", name: "OK_NAME", value: `${variable}${"x".repeat(70_000)}` } },
      { variable: { type: "SECRETS", name: "OK_NAME", value: variable } },
    ]) {
      const res = await owner.api.post("/variables", body);
      expectInvalid(res);
      expect(res.text).not.toContain(variable);
    }
    // A clash answers 409 without the value.
    const clash = await owner.api.post("/variables", {
      variable: {
        type: "SECRET",
        name: (await svc.inspect((tx) => tx.findVariable(planted.variableId)))?.name,
        value: variable,
      },
    });
    expectProblem(clash, 409, "ALREADY_EXISTS");
    expect(clash.text).not.toContain(variable);
  });

  it("the service's log lines hold none of them (checked again for the whole run when the service stops)", () => {
    expect(svc.logs.length).toBeGreaterThan(10);
    expect(leakedIn(JSON.stringify(svc.logs))).toEqual([]);
  });
});
