/**
 * @mcpsm/mcp-oauth: the service as the OAuth 2.1 authorization server of its own MCP endpoints
 * (oidc-provider), so OAuth-only MCP clients can connect: a person consents by pasting a server token.
 */
export {
  createMcpAuthorizationServer,
  MCP_SCOPE,
  type McpAuthorizationServer,
  type McpAuthorizationServerOptions,
} from "./authorization-server.js";
export { type ConsentView, consentPage } from "./consent-page.js";
