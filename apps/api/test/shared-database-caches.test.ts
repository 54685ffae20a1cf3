import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ALL_SCOPES } from "@mcpsm/domain";
import { aesGcmCipher } from "@mcpsm/domain/use-cases";
import { makePostgresStorage, type PostgresStorage } from "@mcpsm/storage-postgres";
import { createServerDatabase, type ServerDatabase } from "@mcpsm/storage-postgres/testing";
import { defaultMcpSettings } from "@mcpsm/mcp-runtime";
import { Effect, Option } from "effect";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mintDevToken } from "../src/auth/dev-auth.js";
import { localConfig } from "../src/config/local-config.js";
import { type RunningService, startService } from "../src/service.js";
import { type Client, clientFor } from "./support/harness.js";
import { listenOnLoopback } from "./support/loopback.js";
import { createProvider, createServer, createToken, createTool } from "./support/records.js";
import { modernMcpRequest } from "./support/modern-mcp-request.js";

// Two instances of the service on one PostgreSQL database, each with the point-read cache on (as the
// service runs it: storage/open-storage.ts) but with entries that would live ten minutes, so that only the
// change notification can make an instance see another's write: a change or a revoked server token is
// seen at once by the instance that made it and, by the other, as soon as the notification arrives (awaited
// by polling until a deadline, never by sleeping).

const serverUrl = process.env.TEST_DATABASE_URL || undefined;

/** Far longer than any poll below: an entry can only go because a change was heard. */
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

describe.runIf(serverUrl)("caches of two instances sharing one PostgreSQL database", () => {
  let database: ServerDatabase;
  let dataDir: string;
  const stores: Array<PostgresStorage> = [];
  const services: Array<RunningService> = [];
  let a: Client;
  let b: Client;
  let serviceA: RunningService;
  let serviceB: RunningService;
  let storeA: PostgresStorage;
  let storeB: PostgresStorage;
  const serviceKey = new Uint8Array(randomBytes(32));

  beforeAll(async () => {
    database = await createServerDatabase(serverUrl!);
    // One data directory: both instances accept the same dev-auth tokens and share the encryption key.
    dataDir = await mkdtemp(join(tmpdir(), "mcpsm-two-instances-"));
    const encryptionKey = Option.some(serviceKey);
    for (let i = 0; i < 2; i++) {
      const store = await makePostgresStorage({
        url: database.url,
        poolSize: 4,
        readCache: { maxAgeMs: ENTRY_LIFETIME_MS },
      });
      if (i === 0) await store.migrate();
      stores.push(store);
      services.push(
        await startService(
          localConfig(dataDir, {
            encryptionKey,
            mcp: defaultMcpSettings({ upstreamAllowedNetworks: ["127.0.0.0/8"] }),
          }),
          {
            storage: store.layer,
            onClose: store.close,
            logger: pino({ level: "silent" }),
          },
        ),
      );
    }
    [serviceA, serviceB] = services as [RunningService, RunningService];
    [storeA, storeB] = stores as [PostgresStorage, PostgresStorage];
    const token = await mintDevToken(dataDir, { subject: "two-instances", scopes: ALL_SCOPES });
    a = clientFor(serviceA.url, token);
    b = clientFor(serviceB.url, token);
    // Both listen before the first write (a cache answers nothing until its instance hears changes).
    await eventually("both instances listening", async () => stores.every((store) => store.readCache?.serving));
  });
  afterAll(async () => {
    for (const service of services) await service.close();
    await database?.dispose();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  /** One 2026-07-28 JSON-RPC request `method` through `service` (`name`: the tool a tools/call names). */
  const requestThrough = (
    service: RunningService,
    serverId: string,
    serverToken: string,
    method: "tools/list" | "tools/call",
    name?: string,
  ) => modernMcpRequest(service.url, serverId, serverToken, method, name);
  const toolsListedBy = (service: RunningService, serverId: string, serverToken: string) =>
    requestThrough(service, serverId, serverToken, "tools/list");
  const toolCalledBy = (service: RunningService, serverId: string, serverToken: string, tool: string) =>
    requestThrough(service, serverId, serverToken, "tools/call", tool);

  const serverNameAt = async (api: Client, id: string) => (await api.get(`/servers/${id}`)).body.server.name;

  it("a server renamed through one instance: the other serves the new name once the change is heard", async () => {
    const server = await createServer(a);
    // B serves it from its cache (once the notifications of A's earlier commits have arrived).
    await eventually("B answers from its cache", async () => {
      const hitsBefore = storeB.readCache!.hits;
      expect(await serverNameAt(b, server.id)).toBe(server.name);
      return storeB.readCache!.hits > hitsBefore;
    });

    const renamed = await a.patch(`/servers/${server.id}`, { server: { name: `${server.name} renamed` } });
    expect(renamed.status).toBe(200);
    // At once on A, the instance that made the change.
    expect(await serverNameAt(a, server.id)).toBe(`${server.name} renamed`);
    await eventually(
      "B sees the new name",
      async () => (await serverNameAt(b, server.id)) === `${server.name} renamed`,
    );
  });

  it("a tool changed through one instance: the other's MCP tools/list shows the change", async () => {
    const provider = await createProvider(a, { baseURL: "https://api.example.com" });
    const tool = await createTool(a, provider.id, { description: "Reads the first edition." });
    const server = await createServer(a, { providers: [{ id: provider.id }] });
    const { value: serverToken } = await createToken(a, server.id);
    expect((await toolsListedBy(serviceB, server.id, serverToken)).text).toContain("Reads the first edition.");
    expect((await toolsListedBy(serviceB, server.id, serverToken)).text).toContain("Reads the first edition.");

    const changed = await a.patch(`/providers/${provider.id}/tools/${tool.id}`, {
      tool: { description: "Reads the second edition." },
    });
    expect(changed.status).toBe(200);
    expect((await toolsListedBy(serviceA, server.id, serverToken)).text).toContain("Reads the second edition.");
    await eventually("B lists the changed tool", async () =>
      (await toolsListedBy(serviceB, server.id, serverToken)).text.includes("Reads the second edition."),
    );
  });

  it("a server's tools changed through one instance: the other's next tools/list shows the change once heard", async () => {
    const provider = await createProvider(a, { baseURL: "https://api.example.com" });
    const kept = await createTool(a, provider.id, { name: "keptTool" });
    await createTool(a, provider.id, { name: "droppedTool" });
    const server = await createServer(a, { providers: [{ id: provider.id }] });
    const { value: serverToken } = await createToken(a, server.id);
    await eventually("B lists both tools from its caches", async () => {
      const missesBefore = storeB.readCache!.misses;
      expect((await toolsListedBy(serviceB, server.id, serverToken)).text).toContain("droppedTool");
      return storeB.readCache!.misses === missesBefore;
    });

    const patched = await a.patch(`/servers/${server.id}`, {
      server: { providers: [{ id: provider.id, tools: [{ id: kept.id }] }] },
    });
    expect(patched.status).toBe(200);
    expect((await toolsListedBy(serviceA, server.id, serverToken)).text).not.toContain("droppedTool");
    await eventually("B lists the server's one tool", async () => {
      const { text } = await toolsListedBy(serviceB, server.id, serverToken);
      return text.includes("keptTool") && !text.includes("droppedTool");
    });
  });

  it("a server token revoked through one instance: refused there at once, and by the other once heard", async () => {
    const provider = await createProvider(a, { baseURL: "https://api.example.com" });
    await createTool(a, provider.id);
    const server = await createServer(a, { providers: [{ id: provider.id }] });
    const token = await createToken(a, server.id);
    // Both instances have accepted (and cached) the token.
    expect((await toolsListedBy(serviceA, server.id, token.value)).status).toBe(200);
    expect((await toolsListedBy(serviceB, server.id, token.value)).status).toBe(200);
    // From its caches: the gate's memo (no lookup at all) or the read cache (hits only), never a miss.
    await eventually("B authenticates from its caches", async () => {
      const missesBefore = storeB.readCache!.misses;
      expect((await toolsListedBy(serviceB, server.id, token.value)).status).toBe(200);
      return storeB.readCache!.misses === missesBefore;
    });

    expect((await a.delete(`/servers/${server.id}/tokens/${token.id}`)).status).toBe(204);
    expect((await toolsListedBy(serviceA, server.id, token.value)).status).toBe(401);
    await eventually(
      "B refuses the revoked token",
      async () => (await toolsListedBy(serviceB, server.id, token.value)).status === 401,
    );
  });

  /**
   * `work` with an upstream that answers each call with the API key it carried, and a tool `whoAmI` whose
   * header sends `${<prefix>_<suffix>}`, a variable made by `variable(name)` (variable names are the tenant's:
   * each test names its own).
   */
  const withKeyEchoingTool = async (
    work: (tool: {
      readonly variableId: string;
      readonly serverId: string;
      readonly serverToken: { readonly id: string; readonly value: string };
      readonly keySentBy: (service: RunningService) => Promise<string>;
    }) => Promise<void>,
    suffix: string,
    variable: (name: string) => object,
  ) => {
    const upstream = await listenOnLoopback((req, res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ key: req.headers["x-api-key"] ?? "" }));
    });
    try {
      const baseURL = upstream.url;
      const provider = await createProvider(a, { baseURL });
      const variableName = `${provider.secretPrefix}_${suffix}`;
      const tool = await createTool(a, provider.id, {
        name: "whoAmI",
        method: "GET",
        path: "/me",
        headers: [{ key: "X-Api-Key", value: `\${${variableName}}` }],
      });
      const created = await a.post("/variables", { variable: variable(variableName) });
      expect(created.status).toBe(201);
      const server = await createServer(a, { providers: [{ id: provider.id, tools: [{ id: tool.id }] }] });
      const serverToken = await createToken(a, server.id);
      const keySentBy = async (service: RunningService) => {
        const answer = await toolCalledBy(service, server.id, serverToken.value, "whoAmI");
        expect(answer.status).toBe(200);
        return answer.text;
      };
      await work({
        variableId: created.body.variable.id,
        serverId: server.id,
        serverToken: { id: serverToken.id, value: serverToken.value },
        keySentBy,
      });
    } finally {
      await upstream.close();
    }
  };

  /** Calls through B until it answers `expected` from its caches (its read cache's hits go up). */
  const servedFromCachesOfB = (keySentBy: (service: RunningService) => Promise<string>, expected: string) =>
    eventually("B serves the call from its caches", async () => {
      const hitsBefore = storeB.readCache!.hits;
      expect(await keySentBy(serviceB)).toContain(expected);
      return storeB.readCache!.hits > hitsBefore;
    });

  it("a SECRET variable changed through one instance: the other's next calls send the new value once heard", async () => {
    await withKeyEchoingTool(
      async ({ variableId, keySentBy }) => {
        expect(await keySentBy(serviceB)).toContain("first-key");
        // B now answers from its caches (the token, the graph and the variables read are kept).
        await servedFromCachesOfB(keySentBy, "first-key");
        expect((await a.patch(`/variables/${variableId}`, { variable: { value: "second-key" } })).status).toBe(200);
        expect(await keySentBy(serviceA)).toContain("second-key");
        await eventually("B sends the new key", async () => (await keySentBy(serviceB)).includes("second-key"));
      },
      "KEY",
      (name) => ({ type: "SECRET", name, value: "first-key" }),
    );
  });

  it("a caller's own value stored or deleted through one instance: the other's next calls follow once heard", async () => {
    await withKeyEchoingTool(
      async ({ variableId, serverToken, keySentBy }) => {
        // The default, while the caller has no value of its own; B keeps "none of its own" in its cache.
        expect(await keySentBy(serviceB)).toContain("shared-key");
        await servedFromCachesOfB(keySentBy, "shared-key");

        // The caller's own value, stored through A's store (as A's form would: encrypted, one row).
        const principal = `server-token:${serverToken.id}`;
        const valueCipher = await Effect.runPromise(aesGcmCipher(serviceKey).encrypt("own-key"));
        await Effect.runPromise(
          storeA.storage.transaction((tx) =>
            tx.putCallerValue({
              id: "cval" + randomBytes(4).toString("hex").slice(0, 7),
              tenant: "two-instances",
              variableId,
              principal,
              serverTokenId: serverToken.id,
              valueCipher,
              createdAt: new Date(),
              updatedAt: new Date(),
            }),
          ),
        );
        expect(await keySentBy(serviceA)).toContain("own-key");
        await eventually("B sends the caller's own key", async () => (await keySentBy(serviceB)).includes("own-key"));

        // Deleted through A's API: B goes back to the default once heard.
        const path = `/variables/${variableId}/caller-values/${encodeURIComponent(principal)}`;
        expect((await a.delete(path)).status).toBe(204);
        expect(await keySentBy(serviceA)).toContain("shared-key");
        await eventually("B sends the default again", async () => (await keySentBy(serviceB)).includes("shared-key"));
      },
      "CALLER_KEY",
      (name) => ({ type: "SECRET", name, value: "shared-key", perCaller: true }),
    );
  });
});
