import type { lookup } from "node:dns";
import { authenticateServerToken, isId, SERVER_TOKEN_PREFIX } from "@mcpsm/domain";
import { type NodeMcpRequestHandler, toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, hostHeaderValidationResponse, originValidationResponse } from "@modelcontextprotocol/server";
import { Cause, Exit, Option } from "effect";
import type { Agent } from "undici";
import type { CompiledServer } from "./compiled-server.js";
import { CompiledServerCache, StoreUnavailable } from "./compiled-cache.js";
import type { McpSettings } from "./config.js";
import { buildMcpServer, type EffectRunner, type UpstreamServices } from "./mcp-server.js";
import { networkPolicy, policyAgent } from "./network-policy.js";

/** The caller behind a valid OAuth access token. */
export interface OAuthPrincipal {
  readonly tenant: string;
  readonly clientId?: string | undefined;
  readonly scopes: ReadonlyArray<string>;
  /** Seconds since the epoch. */
  readonly expiresAt?: number | undefined;
}

/** Verifies OAuth access tokens issued for one MCP server (RFC 8707: its canonical URL is the audience). */
export interface OAuthAccessTokenVerifier {
  /** The principal, or undefined when the token is not valid for `resource`; throws when keys cannot be fetched. */
  readonly verify: (token: string, resource: string) => Promise<OAuthPrincipal | undefined>;
}

export interface McpRuntimeOptions {
  readonly runner: EffectRunner;
  readonly settings: McpSettings;
  /** The URL the service listens on (`http://127.0.0.1:8080`): the default public URL. Read on first use. */
  readonly listenUrl: string | (() => string);
  /** Accepts OAuth access tokens besides server tokens when given. */
  readonly oauth?: OAuthAccessTokenVerifier | undefined;
  /** Authorization servers to advertise when MCP_AUTHORIZATION_SERVERS is not set (e.g. AUTH_ISSUER). */
  readonly defaultAuthorizationServers?: ReadonlyArray<string>;
  /** Name resolution for upstream hosts (tests inject one); defaults to the system's. */
  readonly resolve?: typeof lookup;
  readonly onError?: (error: Error) => void;
  readonly userAgent?: string;
}

export interface McpRuntime {
  /** True for the paths this runtime answers: `/mcp/*` and their protected resource metadata. */
  readonly matches: (path: string) => boolean;
  /** Web-standard face. */
  readonly fetch: (request: Request) => Promise<Response>;
  /** Node face for `(req, res)` servers and frameworks (Koa: `ctx.respond = false`). */
  readonly handleNode: NodeMcpRequestHandler;
  readonly cache: CompiledServerCache;
  readonly close: () => Promise<void>;
}

const MCP_PATH = /^\/mcp\/([^/]+)\/?$/;
const METADATA_PATH = /^\/\.well-known\/oauth-protected-resource\/mcp\/([^/]+)\/?$/;

/** A decoded path segment, or undefined when it is absent or not valid percent-encoding. */
const pathSegment = (raw: string | undefined): string | undefined => {
  if (raw === undefined) return undefined;
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
};
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const LOCAL_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });

const rpcError = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  json(status, { jsonrpc: "2.0", error: { code, message }, id: null }, headers);

const quoted = (text: string) => `"${text.replace(/["\\]/g, "")}"`;

/** The host names a base URL is reached under by default: its own, plus the localhost family for local ones. */
const defaultHostnames = (base: URL): ReadonlyArray<string> => {
  const host = base.hostname;
  const local = ["localhost", "127.0.0.1", "[::1]", "0.0.0.0", "[::]"].includes(host);
  return local ? [...new Set([...(host === "0.0.0.0" || host === "[::]" ? [] : [host]), ...LOCAL_HOSTS])] : [host];
};

type Authentication =
  | {
      readonly ok: true;
      readonly kind: "server-token" | "oauth";
      readonly tenant?: string;
      readonly clientId: string;
      readonly scopes: ReadonlyArray<string>;
      readonly expiresAt?: number | undefined;
    }
  | { readonly ok: false; readonly response: Response };

/** Serves every composed server at `/mcp/{serverId}` (MCP Streamable HTTP, stateless, both protocol eras). */
export const createMcpRuntime = (options: McpRuntimeOptions): McpRuntime => {
  const { settings, runner } = options;
  // The public base URL defaults to the listening URL, which may only be known once the server listens.
  let site: { base: URL; basePath: string; allowedHosts: Array<string>; allowedOrigins: Array<string> } | undefined;
  const siteOf = () => {
    if (site === undefined) {
      const base = Option.getOrElse(
        settings.publicUrl,
        () => new URL(typeof options.listenUrl === "function" ? options.listenUrl() : options.listenUrl),
      );
      const allowedHosts = [...Option.getOrElse(settings.allowedHosts, () => defaultHostnames(base))];
      site = {
        base,
        basePath: base.pathname.replace(/\/+$/, ""),
        allowedHosts,
        allowedOrigins: [...Option.getOrElse(settings.allowedOrigins, () => allowedHosts)],
      };
    }
    return site;
  };
  const authorizationServers = Option.getOrElse(
    settings.authorizationServers,
    () => options.defaultAuthorizationServers ?? [],
  );
  const resourceUrl = (serverId: string) => `${siteOf().base.origin}${siteOf().basePath}/mcp/${serverId}`;
  const metadataUrl = (serverId: string) =>
    `${siteOf().base.origin}${siteOf().basePath}/.well-known/oauth-protected-resource/mcp/${serverId}`;

  const dispatcher: Agent = policyAgent({
    policy: networkPolicy(settings.upstreamAllowedNetworks),
    ...(options.resolve ? { resolve: options.resolve } : {}),
    connectTimeoutMs: Math.min(10_000, settings.upstreamTimeoutMs),
  });
  const services: UpstreamServices = {
    runner,
    dispatcher,
    limits: { timeoutMs: settings.upstreamTimeoutMs, maxResponseBytes: settings.upstreamMaxResponseBytes },
    userAgent: options.userAgent ?? "mcp-server-manager",
  };
  const cache = new CompiledServerCache(runner);
  const onError = options.onError ?? (() => {});
  const handler = createMcpHandler(
    (ctx) => {
      const compiled = ctx.authInfo?.extra?.compiled as CompiledServer | undefined;
      if (compiled === undefined) throw new Error("MCP request reached the handler without a compiled server");
      return buildMcpServer(services, compiled);
    },
    { legacy: "stateless", onerror: onError },
  );

  const challenge = (serverId: string, error?: string) => {
    const detail = error === undefined ? "" : `, error="invalid_token", error_description=${quoted(error)}`;
    return json(
      401,
      error === undefined
        ? {
            error: "unauthorized",
            error_description: "a bearer token is required: a server token or an OAuth access token for this server",
          }
        : { error: "invalid_token", error_description: error },
      { "WWW-Authenticate": `Bearer resource_metadata=${quoted(metadataUrl(serverId))}${detail}` },
    );
  };

  const authenticate = async (request: Request, serverId: string): Promise<Authentication> => {
    const header = request.headers.get("authorization");
    if (header === null || header === "") return { ok: false, response: challenge(serverId) };
    const token = BEARER.exec(header)?.[1];
    if (token === undefined)
      return { ok: false, response: challenge(serverId, "the Authorization header must be 'Bearer <token>'") };
    if (token.startsWith(SERVER_TOKEN_PREFIX)) {
      const exit = await runner.runPromiseExit(authenticateServerToken(serverId, token));
      if (Exit.isSuccess(exit))
        return { ok: true, kind: "server-token", clientId: `server-token:${exit.value.id}`, scopes: [] };
      const failure = Cause.failureOption(exit.cause);
      if (Option.isSome(failure) && failure.value._tag === "Unauthenticated")
        return {
          ok: false,
          response: challenge(serverId, "the server token is invalid, revoked, expired or for another server"),
        };
      return {
        ok: false,
        response: rpcError(503, -32000, "the service cannot check credentials right now; retry later", {
          "Retry-After": "1",
        }),
      };
    }
    if (options.oauth === undefined)
      return { ok: false, response: challenge(serverId, "the token is not a server token of this server") };
    let principal: OAuthPrincipal | undefined;
    try {
      principal = await options.oauth.verify(token, resourceUrl(serverId));
    } catch {
      return {
        ok: false,
        response: rpcError(503, -32000, "the authorization server's keys cannot be fetched; retry later", {
          "Retry-After": "5",
        }),
      };
    }
    if (principal === undefined)
      return {
        ok: false,
        response: challenge(
          serverId,
          `the access token is invalid, expired or not issued for ${resourceUrl(serverId)}`,
        ),
      };
    return {
      ok: true,
      kind: "oauth",
      tenant: principal.tenant,
      clientId: principal.clientId ?? "",
      scopes: principal.scopes,
      expiresAt: principal.expiresAt,
    };
  };

  const serveMcp = async (request: Request, serverId: string): Promise<Response> => {
    const rejected =
      hostHeaderValidationResponse(request, siteOf().allowedHosts) ??
      originValidationResponse(request, siteOf().allowedOrigins);
    if (rejected !== undefined) return rejected;
    if (!isId(serverId)) return rpcError(404, -32001, `no MCP server at ${new URL(request.url).pathname}`);
    const auth = await authenticate(request, serverId);
    if (!auth.ok) return auth.response;
    let compiled: CompiledServer | undefined;
    try {
      compiled = await cache.current(serverId);
    } catch (error) {
      if (error instanceof StoreUnavailable)
        return rpcError(503, -32000, "the store is unavailable; retry later", { "Retry-After": "1" });
      throw error;
    }
    if (compiled === undefined) return rpcError(404, -32001, `MCP server '${serverId}' does not exist`);
    if (auth.kind === "oauth" && auth.tenant !== compiled.tenant)
      return challenge(serverId, "the access token's tenant does not own this server");
    return handler.fetch(request, {
      authInfo: {
        token: "",
        clientId: auth.clientId,
        scopes: [...auth.scopes],
        ...(auth.expiresAt !== undefined ? { expiresAt: auth.expiresAt } : {}),
        resource: new URL(resourceUrl(serverId)),
        extra: { compiled },
      },
    });
  };

  const serveMetadata = (request: Request, serverId: string): Response => {
    const cors = { "Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "GET, OPTIONS" };
    if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: cors });
    if (request.method !== "GET" && request.method !== "HEAD")
      return json(405, { error: "method_not_allowed" }, { Allow: "GET, HEAD, OPTIONS", ...cors });
    if (!isId(serverId)) return json(404, { error: "not_found" }, cors);
    return json(
      200,
      {
        resource: resourceUrl(serverId),
        authorization_servers: authorizationServers,
        bearer_methods_supported: ["header"],
        resource_documentation: `${siteOf().base.origin}${siteOf().basePath}/docs`,
      },
      { ...cors, "Cache-Control": "public, max-age=300" },
    );
  };

  const fetch = async (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname;
    const mcp = MCP_PATH.exec(path);
    const metadata = mcp ? null : METADATA_PATH.exec(path);
    // A malformed escape (`/mcp/%E0`) names no server: 404, not a decoding error.
    const serverId = pathSegment((mcp ?? metadata)?.[1]);
    if (mcp && serverId !== undefined) return serveMcp(request, serverId);
    if (metadata && serverId !== undefined) return serveMetadata(request, serverId);
    return rpcError(404, -32001, "not found");
  };

  return {
    matches: (path) => MCP_PATH.test(path) || METADATA_PATH.test(path),
    fetch,
    handleNode: toNodeHandler({ fetch }, { onerror: onError }),
    cache,
    close: async () => {
      await handler.close();
      await dispatcher.close();
    },
  };
};
