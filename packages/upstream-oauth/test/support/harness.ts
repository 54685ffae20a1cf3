import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Actor, ALL_SCOPES } from "@mcpsm/domain";
import * as W from "@mcpsm/domain/schemas";
import { Storage } from "@mcpsm/domain/storage";
import * as U from "@mcpsm/domain/use-cases";
import { aesGcmCipherLayer, hmacPageTokenSignerLayer, quotasLayer } from "@mcpsm/domain/use-cases";
import { createMcpRuntime, defaultMcpSettings, type McpRuntime, type McpRuntimeOptions } from "@mcpsm/mcp-runtime";
import { makeMemoryStorage } from "@mcpsm/storage-memory";
import type { createUpstreamOAuth } from "../../src/index.js";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Effect, Layer, ManagedRuntime } from "effect";

// The domain services over a memory store and the MCP runtime on loopback, as apps/api composes them.

export const actorOf = (tenant: string): Actor => ({ tenant, scopes: new Set(ALL_SCOPES) });

export const makeServices = (
  storage: typeof Storage.Service = makeMemoryStorage(),
  key: Uint8Array = new Uint8Array(randomBytes(32)),
  oldKeys: ReadonlyArray<Uint8Array> = [],
) =>
  ManagedRuntime.make(
    Layer.mergeAll(
      Layer.succeed(Storage, storage),
      aesGcmCipherLayer(key, oldKeys),
      hmacPageTokenSignerLayer(new Uint8Array(randomBytes(32))),
      quotasLayer(),
    ),
  );
export type Services = ReturnType<typeof makeServices>;

/** Management operations through the domain use cases. */
export const manage = (services: Services, actor: Actor) => {
  const go = <A>(effect: unknown) => services.runPromise(effect as never) as Promise<A>;
  return {
    provider: (body: Record<string, unknown>) =>
      go<{ id: string }>(
        Effect.flatMap(W.decodeProviderCreate({ provider: body }), (provider) => U.createProvider(actor, { provider })),
      ),
    tool: (providerId: string, body: Record<string, unknown>) =>
      go<{ id: string }>(
        Effect.flatMap(W.decodeToolCreate({ tool: body }), (tool) => U.createProviderTool(actor, { providerId, tool })),
      ),
    server: (body: Record<string, unknown>) =>
      go<{ id: string }>(
        Effect.flatMap(W.decodeServerCreate({ server: body }), (server) => U.createServer(actor, { server })),
      ),
    addTool: (serverId: string, providerID: string, toolID: string) =>
      go<unknown>(U.addServerTool(actor, { serverId, tool: { providerID, toolID } })),
    revoke: (serverId: string, tokenId: string) => go<void>(U.revokeServerToken(actor, { serverId, tokenId })),
    connections: (providerId: string) =>
      go<{ connections: Array<{ id: string; principal: string; scopes: Array<string>; refreshable: boolean }> }>(
        U.listProviderConnections(actor, { providerId }),
      ),
    token: (serverId: string) =>
      go<{ id: string; value: string }>(
        Effect.flatMap(W.decodeServerTokenCreate({ token: { name: "t" } }), (token) =>
          U.createServerToken(actor, { serverId, token }),
        ),
      ),
  };
};

export interface RunningMcp {
  readonly url: string;
  readonly runtime: McpRuntime;
  readonly close: () => Promise<void>;
}

/** The consent pages as apps/api mounts them. */
export type Pages = ReturnType<typeof createUpstreamOAuth>["pages"];

/**
 * The MCP runtime on its own server at 127.0.0.1, allowed to reach loopback upstreams, with the consent pages
 * (`/oauth2/authorize`, `/oauth2/callback`) of `pages()` beside it.
 */
export const startMcp = async (
  services: Services,
  extra: Partial<McpRuntimeOptions> = {},
  pages: () => Pages = () => undefined,
): Promise<RunningMcp> => {
  let runtime: McpRuntime | undefined;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const consent = pages();
    if (consent !== undefined && (url.pathname === "/oauth2/authorize" || url.pathname === "/oauth2/callback")) {
      const answer =
        url.pathname === "/oauth2/authorize"
          ? consent.authorize(url.searchParams)
          : consent.callback(url.searchParams, (runtime as McpRuntime).authFetch);
      void answer.then((page) => {
        res.writeHead(page.status, page.headers);
        res.end(page.body);
      });
      return;
    }
    void runtime?.handleNode(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  runtime = createMcpRuntime({
    runner: services,
    settings: defaultMcpSettings({ upstreamAllowedNetworks: ["127.0.0.0/8"], upstreamTimeoutMs: 5_000 }),
    listenUrl: url,
    logger: { warn: () => undefined, error: () => undefined },
    ...extra,
  });
  const started = runtime;
  return {
    url,
    runtime: started,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await started.close();
    },
  };
};

export const ERAS = ["2025-11-25", "2026-07-28"] as const;
export type Era = (typeof ERAS)[number];

/** An SDK client of one server in one era. */
export const connect = async (
  url: string,
  serverId: string,
  era: Era,
  token: string,
  capabilities: Record<string, unknown> = {},
  onUrlElicitation?: (url: string) => Promise<void>,
) => {
  const client = new Client(
    { name: "upstream-oauth-test", version: "1.0.0" },
    {
      capabilities,
      ...(era === "2026-07-28" ? { versionNegotiation: { mode: { pin: "2026-07-28" as const } } } : {}),
    },
  );
  if (onUrlElicitation !== undefined)
    client.setRequestHandler("elicitation/create", async (request) => {
      const params = request.params as { mode?: string; url?: string };
      if (params.mode === "url" && typeof params.url === "string") await onUrlElicitation(params.url);
      return { action: "accept" };
    });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp/${serverId}`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
};

/** The text of the first content block of a tool result. */
export const textOf = (result: unknown): string => {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content[0]?.text ?? "";
};
