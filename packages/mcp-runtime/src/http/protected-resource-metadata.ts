import { isId } from "@mcpsm/domain/schemas";
import type { PublicSite } from "./public-url.js";

// RFC 9728 protected resource metadata of each server: where a client finds the authorization servers that
// issue tokens for it. Public (no token), cacheable and readable cross-origin by browser-based clients.

const CORS = { "Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "GET, OPTIONS" };

const json = (status: number, body: unknown, headers: Record<string, string>) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });

/** Answers `/.well-known/oauth-protected-resource/mcp/{serverId}`. */
export const protectedResourceMetadata =
  (site: PublicSite, authorizationServers: () => ReadonlyArray<string>, scopes: ReadonlyArray<string> = []) =>
  (request: Request, serverId: string): Response => {
    if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: CORS });
    if (request.method !== "GET" && request.method !== "HEAD")
      return json(405, { error: "method_not_allowed" }, { Allow: "GET, HEAD, OPTIONS", ...CORS });
    if (!isId(serverId)) return json(404, { error: "not_found" }, CORS);
    return json(
      200,
      {
        resource: site.resourceUrl(serverId),
        authorization_servers: authorizationServers(),
        bearer_methods_supported: ["header"],
        ...(scopes.length > 0 ? { scopes_supported: scopes } : {}),
        resource_documentation: site.docsUrl(),
      },
      { ...CORS, "Cache-Control": "public, max-age=300" },
    );
  };
