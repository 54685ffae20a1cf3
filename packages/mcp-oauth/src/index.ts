/**
 * @mcpsm/mcp-oauth: the service as the OAuth 2.1 authorization server of its own MCP endpoints
 * (oidc-provider), so OAuth-only MCP clients can connect: a person consents by pasting a server token or
 * by signing in at the identity provider. State is kept through the storage port; the signing key is
 * derived from the service's encryption key.
 */
export {
  createMcpAuthorizationServer,
  MCP_SCOPE,
  type McpAuthorizationServer,
  type McpAuthorizationServerOptions,
  SIGN_IN_CALLBACK_PATH,
} from "./authorization-server.js";
export { type ConsentView, consentPage } from "./consent-page.js";
export {
  DEFAULT_REGISTRATION_LIMITS,
  type RegistrationLimits,
  redirectUriProblem,
} from "./registration-limits.js";
export type { SignInOptions } from "./identity-provider-sign-in.js";
export { deriveSigningKey } from "./signing-key.js";
export type { StorageRunner } from "./storage-adapter.js";
export { MAX_METADATA_DOCUMENT_BYTES, type OutboundFetch } from "./client-metadata-documents.js";
