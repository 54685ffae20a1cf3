/**
 * One stateless 2026-07-28 JSON-RPC request to `/mcp/{serverId}` of the service at `baseUrl`, with the standard
 * headers and `_meta` envelope the fast lane answers (`name`: the tool a tools/call names, with no arguments).
 */
export const modernMcpRequest = async (
  baseUrl: string,
  serverId: string,
  token: string,
  method: "tools/list" | "tools/call",
  name?: string,
): Promise<{ readonly status: number; readonly text: string }> => {
  const response = await fetch(`${baseUrl}/mcp/${serverId}`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${token}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": method,
      ...(name === undefined ? {} : { "Mcp-Name": name }),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method,
      params: {
        ...(name === undefined ? {} : { name, arguments: {} }),
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "test", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
  return { status: response.status, text: await response.text() };
};
