import type { IncomingMessage, ServerResponse } from "node:http";
import {
  createMcpAuthorizationServer,
  type McpAuthorizationServer,
  type McpAuthorizationServerOptions,
} from "@mcpsm/mcp-oauth";
import type { OAuthAccessTokenVerifier } from "@mcpsm/mcp-runtime";
import { decodeJwt } from "jose";

// The service's own authorization server for its MCP endpoints (packages/mcp-oauth), built on first use:
// its issuer is the public URL, which by default is the listening URL and known only once the service listens.

export interface LazyAuthorizationServer {
  readonly matches: (path: string) => boolean;
  readonly handleNode: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** Tokens it issued are checked by it; any other token by `fallback` (the configured authorization server). */
  readonly verifierBefore: (fallback: OAuthAccessTokenVerifier | undefined) => OAuthAccessTokenVerifier;
}

const PATHS = /^\/(?:oauth\/|\.well-known\/(?:oauth-authorization-server|openid-configuration)$)/;

/** An authorization server built from `options()` when first needed. */
export const lazyAuthorizationServer = (options: () => McpAuthorizationServerOptions): LazyAuthorizationServer => {
  let built: Promise<McpAuthorizationServer> | undefined;
  const server = () => {
    built ??= createMcpAuthorizationServer(options());
    return built;
  };
  return {
    matches: (path) => PATHS.test(path),
    handleNode: async (req, res) => (await server()).handleNode(req, res),
    verifierBefore: (fallback) => ({
      verify: async (token, resource) => {
        let issuer: unknown;
        try {
          issuer = decodeJwt(token).iss;
        } catch {
          issuer = undefined;
        }
        // Only a token naming this server as issuer builds it; the others go to the configured verifier.
        if (issuer === options().issuer.replace(/\/+$/, "") || fallback === undefined)
          return (await server()).verifier.verify(token, resource);
        return fallback.verify(token, resource);
      },
    }),
  };
};
