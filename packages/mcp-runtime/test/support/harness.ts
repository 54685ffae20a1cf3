import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Actor, ALL_SCOPES } from "@mcpsm/domain";
import * as W from "@mcpsm/domain/schemas";
import { Storage } from "@mcpsm/domain/storage";
import * as U from "@mcpsm/domain/use-cases";
import { aesGcmCipherLayer, hmacPageTokenSignerLayer, quotasLayer } from "@mcpsm/domain/use-cases";
import { makeMemoryStorage } from "@mcpsm/storage-memory";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Effect, Layer, ManagedRuntime } from "effect";
import {
  createMcpRuntime,
  defaultMcpSettings,
  type FrameHeaders,
  type McpRuntime,
  type McpRuntimeOptions,
  type McpSettings,
} from "../../src/index.js";

export const ERAS = ["2025-11-25", "2026-07-28"] as const;
export type Era = (typeof ERAS)[number];

export const actorOf = (tenant: string): Actor => ({ tenant, scopes: new Set(ALL_SCOPES) });

export type Services = ReturnType<typeof makeServices>;

/**
 * The domain services (what apps/api builds, minus HTTP): over an empty in-memory store, or over `storage`
 * and under the encryption key `key` when given (to share one store, or to break it on purpose).
 */
export const makeServices = (
  storage: typeof Storage.Service = makeMemoryStorage(),
  key: Uint8Array = new Uint8Array(randomBytes(32)),
) =>
  ManagedRuntime.make(
    Layer.mergeAll(
      Layer.succeed(Storage, storage),
      aesGcmCipherLayer(key),
      hmacPageTokenSignerLayer(new Uint8Array(randomBytes(32))),
      quotasLayer(),
    ),
  );

export interface RunningMcp {
  readonly url: string;
  readonly runtime: McpRuntime;
  readonly close: () => Promise<void>;
}

/**
 * The MCP runtime on its own node:http server at 127.0.0.1; `frame`: the headers a host's request frame gives
 * every answer (McpRuntime.handleNode).
 */
export const startMcp = async (
  services: Services,
  settings: Partial<McpSettings>,
  extra: Partial<McpRuntimeOptions> = {},
  frame?: FrameHeaders,
): Promise<RunningMcp> => {
  let runtime: McpRuntime | undefined;
  const server: Server = createServer((req, res) => void runtime?.handleNode(req, res, frame));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  runtime = createMcpRuntime({ runner: services, settings: defaultMcpSettings(settings), listenUrl: url, ...extra });
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

/** Runs a domain effect, failing the test with its error. */
export const run = <A, E>(services: Services, effect: Effect.Effect<A, E, never>) =>
  services.runPromise(effect as never) as Promise<A>;

/**
 * Management operations through the domain use cases (the same ones the HTTP API calls), taking wire bodies
 * that the domain's decoders turn into the use cases' typed inputs, as the HTTP API does.
 */
export const manage = (services: Services, actor: Actor) => {
  const go = <A>(effect: unknown) => services.runPromise(effect as never) as Promise<A>;
  return {
    provider: (body: Record<string, unknown>) =>
      go<{ id: string; secretPrefix: string }>(
        Effect.flatMap(W.decodeProviderCreate({ provider: body }), (provider) => U.createProvider(actor, { provider })),
      ),
    tool: (providerId: string, body: Record<string, unknown>) =>
      go<{ id: string }>(
        Effect.flatMap(W.decodeToolCreate({ tool: body }), (tool) => U.createProviderTool(actor, { providerId, tool })),
      ),
    updateTool: (providerId: string, toolId: string, body: Record<string, unknown>) =>
      go<{ id: string }>(
        Effect.flatMap(W.decodeToolPatch({ tool: body }), (tool) =>
          U.updateProviderTool(actor, { providerId, toolId, tool }),
        ),
      ),
    prompt: (providerId: string, body: Record<string, unknown>) =>
      go<{ id: string }>(
        Effect.flatMap(W.decodePromptCreate({ prompt: body }), (prompt) =>
          U.createProviderPrompt(actor, { providerId, prompt }),
        ),
      ),
    resource: (providerId: string, body: Record<string, unknown>) =>
      go<{ id: string }>(
        Effect.flatMap(W.decodeResourceCreate({ resource: body }), (resource) =>
          U.createProviderResource(actor, { providerId, resource }),
        ),
      ),
    server: (body: Record<string, unknown>) =>
      go<{ id: string; version: number }>(
        Effect.flatMap(W.decodeServerCreate({ server: body }), (server) => U.createServer(actor, { server })),
      ),
    updateServer: (serverId: string, body: Record<string, unknown>) =>
      go<{ id: string }>(
        Effect.flatMap(W.decodeServerPatch({ server: body }), (server) => U.updateServer(actor, { serverId, server })),
      ),
    addTool: (serverId: string, providerID: string, toolID: string) =>
      go<unknown>(U.addServerTool(actor, { serverId, tool: { providerID, toolID } })),
    token: (serverId: string, body: Record<string, unknown> = { name: "test" }) =>
      go<{ id: string; value: string }>(
        Effect.flatMap(W.decodeServerTokenCreate({ token: body }), (token) =>
          U.createServerToken(actor, { serverId, token }),
        ),
      ),
    revoke: (serverId: string, tokenId: string) => go<void>(U.revokeServerToken(actor, { serverId, tokenId })),
    variable: (name: string, value: string, type = "SECRET", perCaller = false) =>
      go<{ id: string }>(
        Effect.flatMap(W.decodeVariableCreate({ variable: { type, name, value, perCaller } }), (variable) =>
          U.createVariable(actor, { variable }),
        ),
      ),
    setVariable: (variableId: string, value: string) =>
      go<unknown>(U.updateVariable(actor, { variableId, variable: { value } })),
  };
};

/** An SDK client connected to one server in one protocol era. */
export const connect = async (
  url: string,
  serverId: string,
  era: Era,
  token: string,
  headers: Record<string, string> = {},
): Promise<Client> => {
  const client = new Client(
    { name: "mcp-runtime-test", version: "1.0.0" },
    era === "2026-07-28" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp/${serverId}`), {
      requestInit: { headers: { Authorization: `Bearer ${token}`, ...headers } },
    }),
  );
  return client;
};
