// Which of the runtime's paths a request names: a server's MCP endpoint, or its protected resource metadata.

const MCP_PATH = /^\/mcp\/([^/]+)\/?$/;
const METADATA_PATH = /^\/\.well-known\/oauth-protected-resource\/mcp\/([^/]+)\/?$/;

export type McpRoute =
  | { readonly kind: "mcp"; readonly serverId: string }
  | { readonly kind: "metadata"; readonly serverId: string };

/** A decoded path segment, or undefined when it is not valid percent-encoding. */
const pathSegment = (raw: string): string | undefined => {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
};

/** True for the paths the runtime answers: `/mcp/*` and their protected resource metadata. */
export const isMcpPath = (path: string): boolean => MCP_PATH.test(path) || METADATA_PATH.test(path);

/** The route of a path; undefined for any other path, and for a malformed escape (`/mcp/%E0` names no server). */
export const routeOf = (path: string): McpRoute | undefined => {
  const mcp = MCP_PATH.exec(path);
  const metadata = mcp === null ? METADATA_PATH.exec(path) : null;
  const raw = (mcp ?? metadata)?.[1];
  const serverId = raw === undefined ? undefined : pathSegment(raw);
  if (serverId === undefined) return undefined;
  return { kind: mcp !== null ? "mcp" : "metadata", serverId };
};
