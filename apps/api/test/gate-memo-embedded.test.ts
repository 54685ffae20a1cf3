import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ALL_SCOPES } from "@mcpsm/domain";
import { defaultMcpSettings } from "@mcpsm/mcp-runtime";
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
import { type Client, clientFor } from "./support/harness.js";
import { type Loopback, listenOnLoopback } from "./support/loopback.js";
import { createProvider, createServer, createToken, createTool } from "./support/records.js";
import { modernMcpRequest } from "./support/modern-mcp-request.js";

// The MCP gate's memo (mcp-runtime/src/auth/gate.ts) on the store the service ships with by default:
// embedded PostgreSQL (PGlite), opened as open-storage.ts opens it. Its change stamp is its own commits' (one
// process owns the database), so a server token's admission is replayed without a read, and a revoked token,
// a changed server or tool is refused or served anew on the very next request after the memo admitted it.
// packages/mcp-runtime/test/gate-memo.test.ts checks the same on the memory store, with two instances.

describe("the MCP gate's memo on the embedded store", () => {
  let dataDir: string;
  let embedded: EmbeddedPostgres;
  let store: PostgresStorage;
  let service: RunningService;
  let upstream: Loopback;
  let api: Client;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "mcpsm-memo-embedded-"));
    embedded = await startEmbeddedPostgres(join(dataDir, "pgdata"));
    store = await makePostgresStorage({ ...embedded.storageOptions, readCache: { listen: false } });
    await store.migrate();
    upstream = await listenOnLoopback((_req, res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ item: "widget" }));
    });
    service = await startService(
      localConfig(dataDir, { mcp: defaultMcpSettings({ upstreamAllowedNetworks: ["127.0.0.0/8"] }) }),
      { storage: store.layer, onClose: store.close, logger: pino({ level: "silent" }) },
    );
    api = clientFor(service.url, await mintDevToken(dataDir, { subject: "memo-embedded", scopes: ALL_SCOPES }));
    // Creating and migrating a PGlite database takes a minute or more on a busy machine.
  }, 300_000);
  afterAll(async () => {
    await service?.close();
    await upstream?.close();
    await embedded?.stop();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  /** One 2026-07-28 JSON-RPC request; `fromMemo`: the gate answered without a lookup in the read cache. */
  const request = async (serverId: string, token: string, method: "tools/list" | "tools/call", name?: string) => {
    const cache = store.readCache!;
    const [hits, misses] = [cache.hits, cache.misses];
    const { status, text } = await modernMcpRequest(service.url, serverId, token, method, name);
    return { status, text, fromMemo: cache.hits === hits && cache.misses === misses };
  };
  const list = (serverId: string, token: string) => request(serverId, token, "tools/list");
  const call = (serverId: string, token: string, tool: string) => request(serverId, token, "tools/call", tool);

  /** A provider on the loopback upstream with tools `first` and `second`, a server of both, and a token. */
  const served = async () => {
    const provider = await createProvider(api, { baseURL: upstream.url });
    const first = await createTool(api, provider.id, { name: "first", description: "The first edition." });
    const second = await createTool(api, provider.id, { name: "second" });
    const server = await createServer(api, { providers: [{ id: provider.id }] });
    const token = await createToken(api, server.id);
    return { provider, first, second, server, token };
  };

  it("offers a change stamp at once, and replays an admitted token's next requests without a read", async () => {
    expect(store.storage.changeStamp?.()).toBeTypeOf("number");
    const { server, token } = await served();
    expect(await list(server.id, token.value)).toMatchObject({ status: 200, fromMemo: false });
    expect(await list(server.id, token.value)).toMatchObject({ status: 200, fromMemo: true });
    const called = await call(server.id, token.value, "first");
    expect(called.status).toBe(200);
    expect(called.text).toContain("widget");
    expect(called.fromMemo).toBe(true);
  });

  it("a revoked token: refused on the very next request after the memo admitted it", async () => {
    const { server, token } = await served();
    await list(server.id, token.value);
    expect(await list(server.id, token.value)).toMatchObject({ status: 200, fromMemo: true });
    expect(await call(server.id, token.value, "first")).toMatchObject({ status: 200, fromMemo: true });

    expect((await api.delete(`/servers/${server.id}/tokens/${token.id}`)).status).toBe(204);
    expect((await call(server.id, token.value, "first")).status).toBe(401);
    expect((await list(server.id, token.value)).status).toBe(401);
  });

  it("a changed server: the very next request serves its new tools", async () => {
    const { provider, first, server, token } = await served();
    await list(server.id, token.value);
    const admitted = await list(server.id, token.value);
    expect(admitted).toMatchObject({ status: 200, fromMemo: true });
    expect(admitted.text).toContain('"second"');

    const patched = await api.patch(`/servers/${server.id}`, {
      server: { providers: [{ id: provider.id, tools: [{ id: first.id }] }] },
    });
    expect(patched.status).toBe(200);
    const after = await list(server.id, token.value);
    expect(after).toMatchObject({ status: 200, fromMemo: false });
    expect(after.text).toContain('"first"');
    expect(after.text).not.toContain('"second"');
  });

  it("a changed tool of its provider: the very next request serves it", async () => {
    const { provider, first, server, token } = await served();
    await list(server.id, token.value);
    expect(await list(server.id, token.value)).toMatchObject({ status: 200, fromMemo: true });

    const changed = await api.patch(`/providers/${provider.id}/tools/${first.id}`, {
      tool: { description: "The second edition." },
    });
    expect(changed.status).toBe(200);
    const after = await list(server.id, token.value);
    expect(after.fromMemo).toBe(false);
    expect(after.text).toContain("The second edition.");
  });

  it("a deleted server: its token refused on the very next request", async () => {
    const { server, token } = await served();
    await list(server.id, token.value);
    expect(await list(server.id, token.value)).toMatchObject({ status: 200, fromMemo: true });

    expect((await api.delete(`/servers/${server.id}`)).status).toBe(204);
    expect((await list(server.id, token.value)).status).toBe(401);
  });
});
