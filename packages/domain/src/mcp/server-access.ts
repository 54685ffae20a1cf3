import { Either } from "effect";
import { NotFound } from "../errors/domain-errors.js";

// Who may call a served MCP server. A server token serves only the server it was made for; an OAuth access
// token is bound to the server's URL by its audience, and the tenant it acts for must own the server. Another tenant's server answers exactly like a missing one, so an
// MCP caller learns nothing about servers it may not use (as the management API does for records).

/** An authenticated MCP caller. */
export type McpCaller =
  | { readonly kind: "server-token"; readonly tokenId: string; readonly serverId: string }
  | {
      readonly kind: "oauth";
      readonly tenant: string;
      /** The access token's subject (`sub`): an upstream OAuth connection belongs to (tenant, sub). */
      readonly subject?: string | undefined;
    };

/** The part of a served server that access depends on. */
export interface McpServerOwner {
  readonly id: string;
  readonly tenant: string;
}

/** True when `caller` may use `server`: a token made for it, or an OAuth token of the tenant that owns it. */
export const mayCallMcpServer = (caller: McpCaller, server: McpServerOwner): boolean =>
  caller.kind === "server-token" ? caller.serverId === server.id : caller.tenant === server.tenant;

/**
 * The server when `caller` may use it; NotFound when it does not exist or belongs to another tenant
 * (indistinguishable on purpose).
 */
export const mcpServerForCaller = <S extends McpServerOwner>(
  caller: McpCaller,
  serverId: string,
  server: S | undefined,
): Either.Either<S, NotFound> =>
  server !== undefined && mayCallMcpServer(caller, server)
    ? Either.right(server)
    : Either.left(new NotFound({ kind: "server", id: serverId }));
