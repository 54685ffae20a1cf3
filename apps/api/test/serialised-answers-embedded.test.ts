import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ALL_SCOPES } from "@mcpsm/domain";
import {
  type EmbeddedPostgres,
  makePostgresStorage,
  type PostgresStorage,
  startEmbeddedPostgres,
} from "@mcpsm/storage-postgres";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mintDevToken } from "../src/auth/dev-auth.js";
import { localConfig } from "../src/config/local-config.js";
import { type RunningService, startService } from "../src/service.js";
import { type Client, clientFor, type Res } from "./support/harness.js";
import { createProvider, createServer, createTool } from "./support/records.js";

// GET /servers/{id}'s kept answers on the store the service ships with by default: embedded PostgreSQL
// (PGlite), its read cache on without a listener (one process owns the database), as open-storage.ts opens it.
// serialised-answers.test.ts checks the same against a PostgreSQL server with several instances.

/** Headers that differ between any two answers (time, per-request id, rate-limit budget). */
const VOLATILE = new Set(["date", "x-request-id", "ratelimit-remaining", "ratelimit-reset", "keep-alive"]);
const stableHeaders = (res: Res) => [...res.headers].filter(([name]) => !VOLATILE.has(name));

describe("serialised answers of GET /servers/{id} on the embedded store", () => {
  let dataDir: string;
  let embedded: EmbeddedPostgres;
  let store: PostgresStorage;
  let service: RunningService;
  let api: Client;
  let stranger: Client;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "mcpsm-serialised-embedded-"));
    embedded = await startEmbeddedPostgres(join(dataDir, "pgdata"));
    store = await makePostgresStorage({ ...embedded.storageOptions, readCache: { listen: false } });
    await store.migrate();
    service = await startService(localConfig(dataDir), {
      storage: store.layer,
      onClose: store.close,
      logger: pino({ level: "silent" }),
    });
    api = clientFor(service.url, await mintDevToken(dataDir, { subject: "embedded-owner", scopes: ALL_SCOPES }));
    stranger = clientFor(service.url, await mintDevToken(dataDir, { subject: "embedded-other", scopes: ALL_SCOPES }));
  }, 120_000);
  afterAll(async () => {
    await service?.close();
    await embedded?.stop();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  /** GET `path`, and whether it was answered from kept bytes (no lookup in the read cache). */
  const getCounted = async (path: string) => {
    const cache = store.readCache!;
    const [hits, misses] = [cache.hits, cache.misses];
    const res = await api.get(path);
    return { res, fromKeptBytes: cache.hits === hits && cache.misses === misses };
  };

  /** GETs `path` until an answer comes from kept bytes (a loaded machine may outlive an entry's 500 ms). */
  const untilKept = async (path: string): Promise<Res> => {
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const { res, fromKeptBytes } = await getCounted(path);
      if (fromKeptBytes) return res;
    }
    throw new Error(`${path} never answered from kept bytes`);
  };

  const serverWithTools = async () => {
    const provider = await createProvider(api, { baseURL: "https://api.example.com" });
    await createTool(api, provider.id, { description: "Reads the first edition." });
    return createServer(api, { providers: [{ id: provider.id }] });
  };

  it("keeps the answer the use case built: the same bytes and headers", async () => {
    const server = await serverWithTools();
    const path = `/servers/${server.id}`;
    const { res: built, fromKeptBytes } = await getCounted(path);
    expect(fromKeptBytes).toBe(false);
    const kept = await untilKept(path);
    expect(kept.status).toBe(200);
    expect(kept.text).toBe(built.text);
    expect(stableHeaders(kept)).toEqual(stableHeaders(built));
    expect(kept.headers.get("etag")).toBe(`W/"${server.version}"`);
  });

  it("answers a change at once, never the bytes kept before it", async () => {
    const server = await serverWithTools();
    const path = `/servers/${server.id}`;
    await untilKept(path);
    const renamed = await api.patch(path, { server: { name: `Renamed ${server.id}` } });
    expect(renamed.status).toBe(200);
    const after = await api.get(path);
    expect(after.body.server.name).toBe(`Renamed ${server.id}`);
    expect(after.headers.get("etag")).toBe(`W/"${server.version + 1}"`);
    expect((await untilKept(path)).text).toBe(after.text);
    expect((await api.delete(path)).status).toBe(204);
    expect((await api.get(path)).status).toBe(404);
  });

  it("another tenant gets its 404, not the owner's kept answer", async () => {
    const server = await serverWithTools();
    const path = `/servers/${server.id}`;
    await untilKept(path);
    expect((await stranger.get(path)).status).toBe(404);
  });
});
