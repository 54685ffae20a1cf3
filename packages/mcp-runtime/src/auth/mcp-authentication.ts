import type { McpCaller } from "@mcpsm/domain/mcp";

/** A request's proven identity: who calls (for the domain's access rule) and what the SDK hands to handlers. */
export interface McpAuthentication {
  readonly caller: McpCaller;
  readonly clientId: string;
  readonly scopes: ReadonlyArray<string>;
  /** Seconds since the epoch. */
  readonly expiresAt?: number | undefined;
}
