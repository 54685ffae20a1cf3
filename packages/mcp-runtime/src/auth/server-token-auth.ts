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
    runner.runPromiseExit(serverTokenAuthentication(serverId, token));

/** The effect of `serverTokenAuth` (to run together with other reads of the same request). */
export const serverTokenAuthentication = (serverId: string, token: string) =>
  authenticateServerToken(serverId, token).pipe(
    Effect.mapError((error) =>
      error._tag === "Unauthenticated"
        ? new Unauthenticated({ detail: "the server token is invalid, revoked, expired or for another server" })
        : error,
    ),
    Effect.map(
      (row): McpAuthentication => ({
        caller: { kind: "server-token", tokenId: row.id, serverId: row.serverId },
        clientId: `server-token:${row.id}`,
        scopes: [],
      }),
    ),
  );
