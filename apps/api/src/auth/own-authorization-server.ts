import type { IncomingMessage } from "node:http";
import { authenticateServerToken } from "@mcpsm/domain/mcp";
import { isId } from "@mcpsm/domain/schemas";
import { Storage } from "@mcpsm/domain/storage";
import type { EffectRunner, PolicyFetch } from "@mcpsm/mcp-runtime";
import { Cause, Effect, Exit, Option, Redacted } from "effect";
import type { Logger } from "pino";
import type { AppConfig } from "../config/app-config.js";
import { derivedKey } from "../security/derived-key.js";
import type { AccessTokenVerifier } from "./access-token-verifier.js";
import { type LazyAuthorizationServer, lazyAuthorizationServer } from "./mcp-authorization-server.js";

// The service as its MCP endpoints' authorization server (opt-in; on by default in dev-auth mode), wired to
// the store (server tokens, owners), the keys and the configured identity provider for sign-in.

/** What the authorization server needs of the running service. */
export interface OwnAuthorizationServerDeps {
  readonly logger: Logger;
  /** The public base URL (known once the service listens, when not configured). */
  readonly publicBase: () => string;
  /** Runs domain effects (traced when tracing is on). */
  readonly runner: EffectRunner;
  /** Runs the authorization server's own storage work (never traced). */
  readonly runtime: EffectRunner;
  readonly encryptionKey: Uint8Array;
  readonly oldKeys: ReadonlyArray<Uint8Array>;
  readonly trustProxyHops: number;
  readonly verifier: AccessTokenVerifier;
  /** The outbound fetch under the upstream address policy (read when the server is first built). */
  readonly fetch: () => PolicyFetch;
}

/** The service's own authorization server, or undefined when it is off. */
export const ownAuthorizationServer = (
  config: AppConfig,
  deps: OwnAuthorizationServerDeps,
): LazyAuthorizationServer | undefined => {
  const { logger, publicBase, runner, runtime, encryptionKey, oldKeys, verifier } = deps;
  const signIn = config.mcpOAuthSignIn === undefined ? Option.none() : config.mcpOAuthSignIn;
  if (Option.isSome(signIn) && config.auth.mode === "dev")
    logger.warn("MCP_OAUTH_SIGNIN_CLIENT_ID is ignored in dev-auth mode (there is no identity provider to sign in at)");
  const enabled = Option.getOrElse(config.mcpOAuthServer ?? Option.none(), () => config.auth.mode === "dev");
  if (!enabled) return undefined;
  return lazyAuthorizationServer(() => ({
    issuer: publicBase(),
    serverIdOf: (resource: string) => {
      const prefix = `${publicBase()}/mcp/`;
      const id = resource.startsWith(prefix) ? resource.slice(prefix.length) : "";
      return isId(id) ? id : undefined;
    },
    checkServerToken: async (serverId: string, token: string) => {
      const exit = await runner.runPromiseExit(authenticateServerToken(serverId, token));
      if (Exit.isSuccess(exit)) return { tenant: exit.value.tenant, tokenId: exit.value.id };
      const failure = Cause.failureOption(exit.cause);
      if (Option.isSome(failure) && failure.value._tag === "Unauthenticated") return undefined;
      throw Cause.squash(exit.cause);
    },
    serverOwner: async (serverId: string) => {
      const exit = await runtime.runPromiseExit(
        Effect.flatMap(Storage, (storage) => storage.read((tx) => tx.findServer(serverId))),
      );
      if (Exit.isSuccess(exit)) return exit.value?.tenant;
      throw Cause.squash(exit.cause);
    },
    runner: runtime,
    registration: config.mcpOAuthRegistration,
    // Client ID Metadata Documents (docs/api-rules.md §22) are fetched under the upstream address policy.
    fetch: deps.fetch(),
    // Behind TRUST_PROXY_HOPS proxies, the address the nearest trusted proxy saw (as Koa's ctx.ip).
    clientAddress: (req: IncomingMessage) => {
      const hops = deps.trustProxyHops;
      const forwarded = String(req.headers["x-forwarded-for"] ?? "")
        .split(",")
        .map((entry) => entry.trim())
        .filter((entry) => entry !== "");
      if (hops === 0 || forwarded.length === 0) return req.socket.remoteAddress ?? "";
      return forwarded[Math.max(0, forwarded.length - hops)] ?? "";
    },
    cookieKeys: [Buffer.from(derivedKey(encryptionKey, "mcp-oauth-cookies")).toString("base64url")],
    // Derived from the encryption keys: the same on every instance, across restarts; see docs/decisions.md.
    signingSecrets: [encryptionKey, ...oldKeys],
    signIn:
      Option.isNone(signIn) || config.auth.mode === "dev"
        ? undefined
        : {
            issuer: config.auth.issuer,
            clientId: signIn.value.clientId,
            clientSecret: Option.getOrUndefined(Option.map(signIn.value.clientSecret, Redacted.value)),
            scope: signIn.value.scope,
            resource: config.auth.audience,
            allowHttp: /^http:\/\/(?:127\.|localhost[:/]|\[::1\])/i.test(config.auth.issuer),
            tenantOf: async (accessToken: string) => {
              const verified = await verifier.verify(accessToken);
              if ("_tag" in verified) {
                if (verified._tag === "Unavailable") throw verified;
                return undefined;
              }
              return verified.tenant;
            },
          },
  }));
};
