import { randomBytes } from "node:crypto";
import { authenticateServerToken } from "@mcpsm/domain/mcp";
import { Storage } from "@mcpsm/domain/storage";
import { aesGcmCipherLayer, hmacPageTokenSignerLayer, quotasLayer } from "@mcpsm/domain/use-cases";
import { makeMemoryStorage } from "@mcpsm/storage-memory";
import { Exit, Layer, ManagedRuntime } from "effect";
import type { McpAuthorizationServerOptions } from "../../src/index.js";

// The store and secrets every authorization server instance of the flow tests shares, and its options.

export const services = ManagedRuntime.make(
  Layer.mergeAll(
    Layer.succeed(Storage, makeMemoryStorage()),
    aesGcmCipherLayer(new Uint8Array(randomBytes(32))),
    hmacPageTokenSignerLayer(new Uint8Array(randomBytes(32))),
    quotasLayer(),
  ),
);
export const run = <A>(effect: unknown) => services.runPromise(effect as never) as Promise<A>;

export const signingSecret = new Uint8Array(randomBytes(32));
export const cookieKey = randomBytes(32).toString("base64url");

/** The options of one instance of the authorization server; every instance shares the store and secrets. */
export const asOptions = (issuer: string): McpAuthorizationServerOptions => {
  const prefix = `${issuer}/mcp/`;
  return {
    issuer,
    serverIdOf: (resource) => (resource.startsWith(prefix) ? resource.slice(prefix.length) || undefined : undefined),
    checkServerToken: async (id, token) => {
      const exit = await services.runPromiseExit(authenticateServerToken(id, token));
      if (Exit.isSuccess(exit)) return { tenant: exit.value.tenant, tokenId: exit.value.id };
      return undefined;
    },
    serverOwner: async () => "owner",
    runner: services,
    cookieKeys: [cookieKey],
    signingSecrets: [signingSecret],
  };
};
