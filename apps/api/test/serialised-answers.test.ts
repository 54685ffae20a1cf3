import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ALL_SCOPES } from "@mcpsm/domain";
import { makePostgresStorage, type PostgresStorage } from "@mcpsm/storage-postgres";
import { createServerDatabase, type ServerDatabase } from "@mcpsm/storage-postgres/testing";
import { Option } from "effect";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mintDevToken } from "../src/auth/dev-auth.js";
import { localConfig } from "../src/config/local-config.js";
import { type RunningService, startService } from "../src/service.js";
import { type Client, clientFor, type Res } from "./support/harness.js";
import { createProvider, createServer, createTool } from "./support/records.js";

// GET /servers/{id} keeps its serialised answer on the server graph the point-read cache holds
// (src/http/serialised-answers.ts). Three instances share one PostgreSQL database: A and B with the read cache
// on (entries that would live ten minutes, so only a change notification can make an instance drop one) and
// F without any cache, which builds every answer afresh. An answer served from the kept bytes shows as a GET
// that made no lookup in the read cache (its hit and miss counters do not move).

const serverUrl = process.env.TEST_DATABASE_URL || undefined;

const ENTRY_LIFETIME_MS = 10 * 60_000;
/** The deadline of a poll; the notification usually arrives within milliseconds. */
const SEEN_WITHIN_MS = 10_000;

/** Polls `probe` until it answers true, failing after SEEN_WITHIN_MS. */
const eventually = async (what: string, probe: () => Promise<boolean>) => {
  const deadline = Date.now() + SEEN_WITHIN_MS;
  for (;;) {
    if (await probe()) return;
    if (Date.now() > deadline) throw new Error(`${what}: not seen within ${SEEN_WITHIN_MS} ms`);
    await new Promise((resolve) => setImmediate(resolve));
  }
};

/** Headers that differ between any two answers (time, per-request id, per-instance rate-limit budget). */
const VOLATILE = new Set(["date", "x-request-id", "ratelimit-remaining", "ratelimit-reset", "keep-alive"]);
const stableHeaders = (res: Res) => [...res.headers].filter(([name]) => !VOLATILE.has(name));

describe.runIf(serverUrl)("serialised answers of GET /servers/{id}", () => {
  let database: ServerDatabase;
  let dataDir: string;
  const services: Array<RunningService> = [];
  let storeA: PostgresStorage;
  let storeB: PostgresStorage;
  let a: Client;
  let b: Client;
  let fresh: Client;
  let stranger: Client;

  beforeAll(async () => {
    database = await createServerDatabase(serverUrl!);
    dataDir = await mkdtemp(join(tmpdir(), "mcpsm-serialised-answers-"));
    const encryptionKey = Option.some(new Uint8Array(randomBytes(32)));
    const stores: Array<PostgresStorage> = [];
    for (const readCache of [{ maxAgeMs: ENTRY_LIFETIME_MS }, { maxAgeMs: ENTRY_LIFETIME_MS }, undefined]) {
      const store = await makePostgresStorage({
        url: database.url,
        poolSize: 4,
        ...(readCache === undefined ? {} : { readCache }),
      });
      if (stores.length === 0) await store.migrate();
      stores.push(store);
      services.push(
        await startService(localConfig(dataDir, { encryptionKey }), {
          storage: store.layer,
          onClose: store.close,
          logger: pino({ level: "silent" }),
        }),
      );
    }
    [storeA, storeB] = stores as [PostgresStorage, PostgresStorage];
    const token = await mintDevToken(dataDir, { subject: "serialised-answers", scopes: ALL_SCOPES });
    const strangerToken = await mintDevToken(dataDir, { subject: "another-tenant", scopes: ALL_SCOPES });
    const [serviceA, serviceB, serviceF] = services as [RunningService, RunningService, RunningService];
    a = clientFor(serviceA.url, token);
    b = clientFor(serviceB.url, token);
    fresh = clientFor(serviceF.url, token);
    stranger = clientFor(serviceA.url, strangerToken);
    await eventually("A and B listening", async () => [storeA, storeB].every((store) => store.readCache?.serving));
  });
  afterAll(async () => {
    for (const service of services) await service.close();
    await database?.dispose();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  /** GET `path` on `api`, and whether it was answered from kept bytes (no lookup in `store`'s read cache). */
  const getCounted = async (api: Client, store: PostgresStorage, path: string) => {
    const cache = store.readCache!;
    const [hits, misses] = [cache.hits, cache.misses];
    const res = await api.get(path);
    return { res, fromKeptBytes: cache.hits === hits && cache.misses === misses };
  };

  /** GETs `path` until an answer comes from kept bytes (the first reads fill the read cache, then keep). */
  const untilKept = async (api: Client, store: PostgresStorage, path: string) => {
    let kept: Res | undefined;
    await eventually(`${path} answered from kept bytes`, async () => {
      const { res, fromKeptBytes } = await getCounted(api, store, path);
      if (fromKeptBytes) kept = res;
      return fromKeptBytes;
    });
    return kept as Res;
  };

  const serverWithTools = async () => {
    const provider = await createProvider(a, { baseURL: "https://api.example.com" });
    const tool = await createTool(a, provider.id, { description: "Reads the first edition." });
    await createTool(a, provider.id);
    const server = await createServer(a, { providers: [{ id: provider.id }] });
    return { provider, tool, server };
  };

  it("an answer from kept bytes equals the answer built afresh, headers included", async () => {
    const { server } = await serverWithTools();
    const path = `/servers/${server.id}`;
    const kept = await untilKept(a, storeA, path);
    const built = await fresh.get(path);
    expect(kept.status).toBe(200);
    expect(kept.text).toBe(built.text);
    expect(stableHeaders(kept)).toEqual(stableHeaders(built));
    expect(kept.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(kept.headers.get("etag")).toBe(`W/"${server.version}"`);
    expect(kept.body.server.id).toBe(server.id);
    // Again from kept bytes: the same answer. (Polled: on a loaded machine the entry's 500 ms lifetime can
    // end between two reads, and the next read then keeps its answer afresh.)
    const again = await untilKept(a, storeA, path);
    expect(again.text).toBe(built.text);
  });

  it("another tenant gets its 404, not the owner's kept answer", async () => {
    const { server } = await serverWithTools();
    const path = `/servers/${server.id}`;
    await untilKept(a, storeA, path);
    const res = await stranger.get(path);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.text).not.toContain(server.name);
  });

  it("a server renamed on A: A answers the new name at once, B as soon as it hears the change", async () => {
    const { server } = await serverWithTools();
    const path = `/servers/${server.id}`;
    await untilKept(a, storeA, path);
    await untilKept(b, storeB, path);

    const renamed = await a.patch(path, { server: { name: `${server.name} renamed` } });
    expect(renamed.status).toBe(200);
    const onA = await a.get(path);
    expect(onA.body.server.name).toBe(`${server.name} renamed`);
    expect(onA.headers.get("etag")).toBe(`W/"${server.version + 1}"`);
    await eventually("B answers the new name", async () => {
      const onB = await b.get(path);
      return onB.body.server.name === `${server.name} renamed` && onB.headers.get("etag") === onA.headers.get("etag");
    });
    // Kept again once read again, and equal to what is built afresh.
    expect((await untilKept(b, storeB, path)).text).toBe((await fresh.get(path)).text);
  });

  it("a tool changed on A (the server's version stays): both instances drop their kept answer", async () => {
    const { provider, tool, server } = await serverWithTools();
    const path = `/servers/${server.id}`;
    expect((await untilKept(a, storeA, path)).text).toContain("Reads the first edition.");
    expect((await untilKept(b, storeB, path)).text).toContain("Reads the first edition.");

    const changed = await a.patch(`/providers/${provider.id}/tools/${tool.id}`, {
      tool: { description: "Reads the second edition." },
    });
    expect(changed.status).toBe(200);
    const onA = await a.get(path);
    expect(onA.text).toContain("Reads the second edition.");
    expect(onA.text).toBe((await fresh.get(path)).text);
    await eventually("B shows the changed tool", async () =>
      (await b.get(path)).text.includes("Reads the second edition."),
    );
    expect((await untilKept(b, storeB, path)).text).toBe((await fresh.get(path)).text);
  });

  it("a server deleted on A: both answer 404 afterwards", async () => {
    const { server } = await serverWithTools();
    const path = `/servers/${server.id}`;
    await untilKept(a, storeA, path);
    await untilKept(b, storeB, path);
    expect((await a.delete(path)).status).toBe(204);
    expect((await a.get(path)).status).toBe(404);
    await eventually("B answers 404", async () => (await b.get(path)).status === 404);
  });
});
