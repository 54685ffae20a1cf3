import type { McpCaller } from "../mcp/server-access.js";

/** Who made a call, as the call log names them: `server-token:<token id>` or `oauth:<subject>` (never a credential). */
export const callPrincipal = (caller: McpCaller): string =>
  caller.kind === "server-token" ? `server-token:${caller.tokenId}` : `oauth:${caller.subject ?? ""}`;
