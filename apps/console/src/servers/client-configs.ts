// Ready-to-paste configuration of the common MCP clients for one server (see docs/mcp.md for the clients
// tested against the service). The token is the placeholder until one is minted in this tab.

export interface ClientConfig {
  readonly id: string;
  readonly client: string;
  readonly where: string;
  readonly text: string;
}

const slug = (name: string): string =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "") || "mcp-server";

/** The configuration of each supported client for the server at `url`. */
export const clientConfigs = (name: string, url: string, token: string): ReadonlyArray<ClientConfig> => {
  const key = slug(name);
  const bearer = `Bearer ${token}`;
  const json = (value: unknown) => JSON.stringify(value, null, 2);
  return [
    {
      id: "claude-desktop",
      client: "Claude Desktop",
      where: "claude_desktop_config.json (through the mcp-remote bridge)",
      text: json({
        mcpServers: {
          [key]: {
            command: "npx",
            // biome-ignore lint/suspicious/noTemplateCurlyInString: mcp-remote expands ${AUTH_HEADER} from env itself
            args: ["-y", "mcp-remote", url, "--header", "Authorization:${AUTH_HEADER}"],
            env: { AUTH_HEADER: bearer },
          },
        },
      }),
    },
    {
      id: "claude-code",
      client: "Claude Code",
      where: "a shell",
      text: `claude mcp add --transport http ${key} ${url} --header "Authorization: ${bearer}"`,
    },
    {
      id: "vscode",
      client: "VS Code",
      where: ".vscode/mcp.json",
      text: json({ servers: { [key]: { type: "http", url, headers: { Authorization: bearer } } } }),
    },
    {
      id: "cursor",
      client: "Cursor",
      where: "~/.cursor/mcp.json",
      text: json({ mcpServers: { [key]: { url, headers: { Authorization: bearer } } } }),
    },
    {
      id: "mcp-remote",
      client: "mcp-remote",
      where: "a shell (stdio bridge for any client)",
      text: `npx -y mcp-remote ${url} --header "Authorization: ${bearer}"`,
    },
  ];
};
