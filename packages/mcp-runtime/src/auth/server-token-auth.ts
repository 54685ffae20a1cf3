import { Unauthenticated, type Unavailable } from "@mcpsm/domain/errors";
import { authenticateServerToken } from "@mcpsm/domain/mcp";
import { Effect, type Exit } from "effect";
import type { EffectRunner } from "@mcpsm/upstream-http";
import type { McpAuthentication } from "./mcp-authentication.js";

// Server tokens (`mcps_…`): checked against the store by the domain, bound to the one server they were made for.

/** Authenticates a server token for `serverId`: Unauthenticated when it is not valid there, Unavailable in an outage. */
export const serverTokenAuth =
  (runner: EffectRunner) =>
  (serverId: string, token: string): Promise<Exit.Exit<McpAuthentication, Unauthenticated | Unavailable>> =>
    runner.runPromiseExit(Effect.map(serverTokenGrant(serverId, token), (grant) => grant.auth));

/** A server token's authentication, and when the token expires (null: never) for the gate's memo. */
export interface ServerTokenGrant {
  readonly auth: McpAuthentication;
  readonly expiresAt: Date | null;
}

/** The effect of `serverTokenAuth`, with the token's expiry (to run together with other reads of the request). */
export const serverTokenGrant = (serverId: string, token: string) =>
  authenticateServerToken(serverId, token).pipe(
    Effect.mapError((error) =>
      error._tag === "Unauthenticated"
        ? new Unauthenticated({ detail: "the server token is invalid, revoked, expired or for another server" })
        : error,
    ),
    Effect.map(
      (row): ServerTokenGrant => ({
        auth: {
          caller: { kind: "server-token", tokenId: row.id, serverId: row.serverId },
          clientId: `server-token:${row.id}`,
          scopes: [],
        },
        expiresAt: row.expiresAt,
      }),
    ),
  );
